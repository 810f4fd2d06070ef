import { isIP } from 'node:net';
import { Agent, buildConnector, ProxyAgent, type Dispatcher } from 'undici';
import { compileGlob } from '../../db/glob.js';
import type { Config } from '../../db/process/config.js';
import { resolveHost } from '../../db/net/resolve.js';
import { parseHostMatchList, type HostMatcher } from './host-matcher.js';

/** A connection the allow-list refused; the delivery records the reason and is not retried. */
export class RefusedAddressError extends Error {
  constructor(readonly hostname: string, readonly address: string) {
    super(`webhook can only call allowed HTTP servers (check your [webhook] ALLOWED_HOST_LIST setting), deny '${hostname}(${address})'`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A connector that resolves the host itself, checks every address against the allow-list, and connects to the
 * checked address (TLS still verifies the host name): a DNS answer that changes between check and connect
 * (rebinding) cannot reach a refused address.
 */
function guardedConnector(matcher: HostMatcher, tls: { rejectUnauthorized: boolean }): buildConnector.connector {
  const connect = buildConnector({ ...tls, keepAlive: true });
  return (options, callback) => {
    const hostname = options.hostname.replace(/^\[|\]$/g, '');
    resolveHost(hostname).then(
      (addresses) => {
        const allowed = addresses.find((address) => matcher.allows(hostname, address));
        if (!allowed) {
          callback(new RefusedAddressError(hostname, addresses[0] ?? ''), null);
          return;
        }
        const servername = isIP(hostname) ? undefined : hostname;
        connect({ ...options, hostname: allowed, host: allowed, ...(servername ? { servername } : {}) }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}

/** The dispatchers of one worker process: one keep-alive agent for every hook, and one through the proxy when set. */
export interface DeliveryDispatchers {
  direct: Dispatcher;
  proxy: Dispatcher | null;
  /** The dispatcher for a host: the proxy for hosts matching [webhook] PROXY_HOSTS. */
  forHost(hostname: string): Dispatcher;
}

let shared: { key: string; dispatchers: DeliveryDispatchers } | null = null;

/** Built once per process (per webhook configuration) and shared by every delivery. */
export function deliveryDispatchers(config: Config): DeliveryDispatchers {
  const { allowedHostList, skipTlsVerify, proxyUrl, proxyHosts } = config.webhook;
  const key = JSON.stringify(config.webhook);
  if (shared?.key === key) return shared.dispatchers;
  const matcher = parseHostMatchList(allowedHostList || 'external');
  const tls = { rejectUnauthorized: !skipTlsVerify };
  const direct = new Agent({ connect: guardedConnector(matcher, tls), keepAliveTimeout: 30_000, connections: 64, pipelining: 1 });
  const proxy = proxyUrl ? new ProxyAgent({ uri: proxyUrl, requestTls: tls, connect: guardedConnector(matcher, tls) }) : null;
  const proxied = proxyHosts.map((pattern) => compileGlob(pattern.toLowerCase())).filter((g): g is RegExp => g !== null);
  const dispatchers: DeliveryDispatchers = {
    direct,
    proxy,
    forHost: (hostname) => (proxy && proxied.some((glob) => glob.test(hostname.toLowerCase())) ? proxy : direct),
  };
  shared = { key, dispatchers };
  return dispatchers;
}
