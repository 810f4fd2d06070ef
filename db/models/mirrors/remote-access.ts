import { decryptSecret, encryptSecret } from '../../crypto.js';
import type { RemoteAccess } from '../../git/remote.js';
import { migrationPolicy, parseRemoteAddress, pinOutboundTarget, type RemoteCredentials } from '../../net/outbound-targets.js';
import type { Config } from '../../process/config.js';

/** Credentials at rest: one sealed JSON value, or null when there are none. */
export function sealCredentials(config: Pick<Config, 'security'>, credentials: RemoteCredentials | null): string | null {
  return credentials ? encryptSecret(config.security.secretKey, JSON.stringify(credentials)) : null;
}

function openCredentials(config: Pick<Config, 'security'>, sealed: string | null): RemoteCredentials | null {
  if (!sealed) return null;
  const value = JSON.parse(decryptSecret(config.security.secretKey, sealed)) as Partial<RemoteCredentials>;
  return { username: String(value.username ?? ''), password: String(value.password ?? '') };
}

/**
 * What git needs to reach a stored remote now: the address checked again against the outbound policy with the
 * host resolved at this moment, the connection pinned to that address, and the credentials unsealed.
 */
export async function connectRemote(config: Config, address: string, sealed: string | null): Promise<RemoteAccess> {
  const { target } = parseRemoteAddress(address);
  const credentials = openCredentials(config, sealed);
  if (target.kind === 'local') return { url: target.path, credentials: null, pin: null };
  const pin = await pinOutboundTarget(target, migrationPolicy(config));
  return { url: target.url, credentials, pin };
}

/** An error's message as it may be stored and shown: no URL userinfo, and none of the given secrets. */
export function safeMessage(error: unknown, secrets: Array<string | undefined>): string {
  let text = (error instanceof Error ? error.message : String(error)).replace(/(\w+:\/\/)[^/@\s]*@/g, '$1');
  for (const secret of secrets) if (secret && secret.length >= 3) text = text.split(secret).join('***');
  return text.slice(0, 2000);
}
