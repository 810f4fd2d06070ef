import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Every address a host name stands for (the address itself for an address literal), as the outbound checks of
 * webhooks, migrations and mirrors see it. Names go to the system's resolver (getaddrinfo: /etc/hosts, then DNS).
 *
 * HEARTH_TEST_DNS_SERVERS (for tests and drills only: `127.0.0.1:5353`, comma-separated) sends every name to those
 * DNS servers instead (A and AAAA queries through node's resolver), so that a drill can answer names with the
 * addresses it wants to try, and change an answer between two lookups. It is read at each lookup.
 */
export async function resolveHost(host: string): Promise<string[]> {
  const name = host.replace(/^\[|\]$/g, '');
  if (isIP(name)) return [name];
  const servers = process.env.HEARTH_TEST_DNS_SERVERS?.split(',').map((server) => server.trim()).filter(Boolean);
  if (!servers?.length) return (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers(servers);
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  if (addresses.length === 0) throw new Error(`no address for ${name}`);
  return addresses;
}
