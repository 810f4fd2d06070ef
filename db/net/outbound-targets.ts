import { statSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { compileGlob } from '../glob.js';
import { invalid } from '../errors.js';
import type { Config } from '../process/config.js';
import { resolveHost } from './resolve.js';
export { sanitizeAddress } from './sanitize-address.js';

// Where migrations, pull mirrors and push mirrors may connect: [migrations] ALLOW_LOCALNETWORKS, ALLOWED_DOMAINS,
// BLOCKED_DOMAINS and [security] IMPORT_LOCAL_PATHS, as Gitea's IsMigrateURLAllowed applies them. A name is
// resolved and every address checked when the address is given, and again right before each connection; the
// connection is then pinned to the address that was checked, so a name that resolves differently the second
// time (DNS rebinding) cannot reach a refused address. (Webhook targets have their own list: [webhook].)

export interface OutboundPolicy {
  allowLocalNetworks: boolean;
  /** When not empty, only these hosts (globs such as `*.example.com`, or CIDR ranges) are allowed. */
  allowedDomains: string[];
  blockedDomains: string[];
  importLocalPaths: boolean;
}

export function migrationPolicy(config: Pick<Config, 'migrations' | 'security'>): OutboundPolicy {
  return { ...config.migrations, importLocalPaths: config.security.importLocalPaths };
}

/** A remote repository: an http(s) address without credentials, or a directory on this server. */
export type RemoteTarget = { kind: 'http'; url: string; host: string; port: number } | { kind: 'local'; path: string };

export interface RemoteCredentials {
  username: string;
  password: string;
}

/** The address as given, split into the target and the credentials it carried (explicit ones win, as in Gitea). */
export interface ParsedRemote {
  target: RemoteTarget;
  credentials: RemoteCredentials | null;
}

/** Where a checked connection goes: curl's `--resolve host:port:address`. */
export interface PinnedAddress {
  host: string;
  port: number;
  address: string;
}

const invalidUrl = (): Error => invalid('migration/cloning/mirroring URL is invalid');
const disallowedHost = (): Error => invalid('You can not import from disallowed hosts.');

/** Gitea's ParseRemoteAddr: http(s) URLs (credentials taken out), `file://` URLs and absolute local paths. */
export function parseRemoteAddress(address: string, username = '', password = ''): ParsedRemote {
  const text = address.trim();
  if (text.startsWith('/') || text.toLowerCase().startsWith('file://')) {
    const local = text.startsWith('/') ? text : decodeURIComponent(new URL(text).pathname);
    return { target: { kind: 'local', path: path.resolve(local) }, credentials: null };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidUrl();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw invalidUrl();
  const user = username || decodeURIComponent(url.username);
  const pass = password || decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  url.hash = '';
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { target: { kind: 'http', url: url.toString(), host, port }, credentials: user || pass ? { username: user, password: pass } : null };
}

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) nonPublic.addSubnet(net, prefix, 'ipv6');

/** Loopback, private, link-local, multicast or unspecified: Gitea's `IsPrivate() || !IsGlobalUnicast()`. */
export function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isLocalAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return true;
  return nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Host globs (any characters for `*`, case-insensitive) and CIDR ranges, as Gitea's host matcher reads them. */
function matchesHostList(list: string[], host: string, addresses: string[]): boolean {
  for (const entry of list) {
    const cidr = /^(.+)\/(\d+)$/.exec(entry);
    if (cidr && isIP(cidr[1])) {
      const range = new BlockList();
      const family = isIP(cidr[1]) === 4 ? 'ipv4' : 'ipv6';
      range.addSubnet(cidr[1], Number(cidr[2]), family);
      if (addresses.some((a) => isIP(a) && range.check(a, isIP(a) === 4 ? 'ipv4' : 'ipv6'))) return true;
      continue;
    }
    if (compileGlob(entry.toLowerCase())?.test(host.toLowerCase())) return true;
  }
  return false;
}

/** Every address a host name stands for (the name itself for an address literal); a 422 when it has none. */
async function resolveTarget(host: string): Promise<string[]> {
  try {
    return await resolveHost(host);
  } catch {
    throw invalid(`Could not resolve the host ${host}.`);
  }
}

/**
 * Checks an http(s) target against the policy with the host resolved now, and answers the address to connect to.
 * Refusals are 422s with Gitea's messages; the caller running in a worker records them instead.
 */
export async function pinOutboundTarget(target: Extract<RemoteTarget, { kind: 'http' }>, policy: OutboundPolicy): Promise<PinnedAddress> {
  if (matchesHostList(policy.blockedDomains, target.host, [])) throw disallowedHost();
  if (policy.allowedDomains.length > 0 && !matchesHostList(policy.allowedDomains, target.host, isIP(target.host) ? [target.host] : [])) {
    throw disallowedHost();
  }
  const addresses = await resolveTarget(target.host);
  if (addresses.length === 0) throw invalid(`Could not resolve the host ${target.host}.`);
  if (matchesHostList(policy.blockedDomains, target.host, addresses)) throw disallowedHost();
  if (!policy.allowLocalNetworks && addresses.some(isLocalAddress)) throw disallowedHost();
  return { host: target.host, port: target.port, address: addresses[0] };
}

/**
 * May this caller use this target? Local paths: administrators only, with IMPORT_LOCAL_PATHS on, and only an
 * existing directory. http(s): the checks of `pinOutboundTarget`.
 */
export async function checkRemoteTarget(target: RemoteTarget, policy: OutboundPolicy, isAdmin: boolean): Promise<void> {
  if (target.kind === 'http') {
    await pinOutboundTarget(target, policy);
    return;
  }
  if (!isAdmin || !policy.importLocalPaths) throw invalid('You are not allowed to import local repositories.');
  let isDirectory = false;
  try {
    isDirectory = statSync(target.path).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw invalid('Invalid local path, it does not exist or not a directory.');
}
