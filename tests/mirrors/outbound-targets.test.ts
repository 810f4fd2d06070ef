import test from 'ava';
import { isLocalAddress, parseRemoteAddress, pinOutboundTarget, sanitizeAddress, type OutboundPolicy } from '../../db/net/outbound-targets.js';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth } from '../helpers/hearth.js';
import { refOnServer, remote } from '../git/git-client.js';

const closed: OutboundPolicy = { allowLocalNetworks: false, allowedDomains: [], blockedDomains: [], importLocalPaths: false };

test('local, private, link-local and mapped addresses are local; public ones are not', (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0']) {
    t.true(isLocalAddress(address), address);
  }
  for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '100.64.0.1']) t.false(isLocalAddress(address), address);
});

test('addresses lose their credentials; explicit credentials win over those in the address', (t) => {
  const parsed = parseRemoteAddress('https://u:p%40ss@example.com/o/r.git', '', '');
  t.deepEqual(parsed, { target: { kind: 'http', url: 'https://example.com/o/r.git', host: 'example.com', port: 443 }, credentials: { username: 'u', password: 'p@ss' } });
  t.deepEqual(parseRemoteAddress('https://u:p@example.com/r', 'v', 'q').credentials, { username: 'v', password: 'q' });
  t.is(sanitizeAddress('http://x:y@h:81/a'), 'http://h:81/a');
  t.throws(() => parseRemoteAddress('ssh://git@example.com/r.git'), { message: 'migration/cloning/mirroring URL is invalid' });
});

test('names are resolved before the check: localhost is refused unless local networks are allowed; lists apply', async (t) => {
  const target = { kind: 'http' as const, url: 'http://localhost:9/r.git', host: 'localhost', port: 9 };
  await t.throwsAsync(pinOutboundTarget(target, closed), { message: 'You can not import from disallowed hosts.' });
  const pin = await pinOutboundTarget(target, { ...closed, allowLocalNetworks: true });
  t.true(isLocalAddress(pin.address));
  await t.throwsAsync(pinOutboundTarget(target, { ...closed, allowLocalNetworks: true, blockedDomains: ['local*'] }));
  await t.throwsAsync(pinOutboundTarget(target, { ...closed, allowLocalNetworks: true, allowedDomains: ['*.example.com'] }));
  t.truthy(await pinOutboundTarget(target, { ...closed, allowLocalNetworks: true, allowedDomains: ['127.0.0.0/8', 'localhost'] }));
});

test('git connects to the pinned address, not to what the name resolves to', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const source = await build.repo(hearth, alice, { name: 'source', autoInit: true });
  const copy = await build.repo(hearth, alice, { name: 'copy' });
  await drain(hearth);
  const port = Number(new URL(hearth.rootUrl).port);
  // The name resolves nowhere; only the pin makes the fetch reach Hearth.
  const url = remote(hearth, 'alice', 'source').replace('127.0.0.1', 'pinned.hearth.invalid');
  await hearth.deps.git.open(copy).fetchMirror(
    { url, credentials: { username: 'alice', password: alice.token }, pin: { host: 'pinned.hearth.invalid', port, address: '127.0.0.1' } },
    true, 30_000,
  );
  t.is(await refOnServer(hearth, 'alice', 'copy', 'refs/heads/main'), await refOnServer(hearth, 'alice', 'source', 'refs/heads/main'));
  t.truthy(source);
});

test('the policy is applied again at connect time: a mirror whose host became refused records the refusal', async (t) => {
  const hearth = await startHearth(t, { HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true' });
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'source', autoInit: true });
  await drain(hearth);
  const made = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: 'copy', mirror: true } });
  t.is(made.status, 201);
  await drain(hearth);
  hearth.config.migrations.allowLocalNetworks = false;
  t.is((await hearth.call('POST', '/repos/alice/copy/mirror-sync', { auth: alice.bearer })).status, 200);
  await drain(hearth);
  const [mirror] = await hearth.store.db.query<{ last_error: string; next_update: Date }>('SELECT last_error, next_update FROM mirror');
  t.is(mirror.last_error, 'You can not import from disallowed hosts.');
  // The repository shows the failure and when the next try is due (Hearth's own fields).
  const shown = await hearth.call('GET', '/repos/alice/copy', { auth: alice.bearer });
  t.like(shown.body, { mirror: true, mirror_last_error: 'You can not import from disallowed hosts.', mirror_next_update: mirror.next_update.toISOString().replace(/\.\d+Z$/, 'Z') });
  t.true(Date.parse(shown.body.mirror_next_update) > Date.now() + 7 * 3600_000, 'the default interval, 8h, from now');
});
