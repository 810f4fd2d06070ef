import { BlockList, isIP, isIPv4 } from 'node:net';
import { compileGlob } from '../../db/glob.js';

/**
 * Gitea's hostmatcher for `[webhook] ALLOWED_HOST_LIST`: the built-in names `loopback`, `private`, `external`
 * and `*`, CIDRs matched against the address connected to, and globs matched against the host name asked for.
 */
export interface HostMatcher {
  allows(hostname: string, address: string): boolean;
}

function subnets(entries: Array<[string, number]>): BlockList {
  const list = new BlockList();
  for (const [address, prefix] of entries) list.addSubnet(address, prefix, isIPv4(address) ? 'ipv4' : 'ipv6');
  return list;
}

const loopback = subnets([['127.0.0.0', 8], ['::1', 128]]);
/** Go's net.IP.IsPrivate: RFC 1918 and RFC 4193. */
const privateRanges = subnets([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['fc00::', 7]]);
/** What Go's IsGlobalUnicast refuses besides loopback: unspecified, link-local, multicast and broadcast addresses. */
const notGlobalUnicast = subnets([
  ['0.0.0.0', 8], ['169.254.0.0', 16], ['224.0.0.0', 4], ['255.255.255.255', 32], ['::', 128], ['fe80::', 10], ['ff00::', 8],
]);

function family(address: string): 'ipv4' | 'ipv6' {
  return isIPv4(address) ? 'ipv4' : 'ipv6';
}

/** An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

export function parseHostMatchList(setting: string): HostMatcher {
  const builtins = new Set<string>();
  const cidrs = new BlockList();
  const globs: RegExp[] = [];
  for (const raw of setting.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (['loopback', 'private', 'external', '*'].includes(entry)) {
      builtins.add(entry);
      continue;
    }
    const [address, bits] = entry.split('/');
    if (bits !== undefined && isIP(address)) {
      cidrs.addSubnet(address, Number(bits), family(address));
      continue;
    }
    const glob = compileGlob(entry);
    if (glob) globs.push(glob);
  }
  return {
    allows(hostname, rawAddress) {
      if (builtins.has('*')) return true;
      const address = unmapped(rawAddress);
      const type = family(address);
      const isLoopback = loopback.check(address, type);
      const isPrivate = privateRanges.check(address, type);
      if (builtins.has('loopback') && isLoopback) return true;
      if (builtins.has('private') && isPrivate) return true;
      if (builtins.has('external') && !isLoopback && !isPrivate && !notGlobalUnicast.check(address, type)) return true;
      if (cidrs.check(address, type)) return true;
      const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
      return globs.some((glob) => glob.test(name));
    },
  };
}
