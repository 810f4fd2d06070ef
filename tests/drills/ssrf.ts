import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import type { TestHearth, TestUser } from '../helpers/hearth.js';
import { startDrillDns, type DrillDns } from './dns-server.js';
import type { DrillEnv } from './drill.js';
import { startRedirector, startRelay, startTrap, type Listener } from './listeners.js';

/**
 * The SSRF drill: webhook, migration, pull-mirror and push-mirror targets that name this machine or a private network
 * in every spelling (addresses, decimal and octal forms, IPv6 loopback and IPv4-mapped IPv6, names a DNS server of the
 * drill's answers with them), names whose answer changes between check and connect, and redirects from an allowed
 * target to a refused one. Under the default allow-lists each is refused with the reason recorded, and nothing reaches
 * the listeners; with the allow-lists naming them, the reachable ones are reached.
 */

/** Targets a loopback relay answers on: reached when allowed. */
const reachable = (short: boolean): string[] => short
  ? ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', 'loop.drill.test']
  : ['127.0.0.1', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]', '2130706433', '0177.0.0.1', '0x7f.1', 'loop.drill.test', 'loop6.drill.test', 'mapped.drill.test'];
/** Private and link-local targets nothing answers on: refused, or accepted (not refused) when allowed. */
const unreachable = (short: boolean): string[] => short
  ? ['169.254.169.254', 'meta.drill.test']
  : ['10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '[fd00::1]', 'private.drill.test', 'meta.drill.test'];

const names: Record<string, string[]> = {
  'loop.drill.test': ['127.0.0.1'],
  'loop6.drill.test': ['::1'],
  'mapped.drill.test': ['::ffff:127.0.0.1'],
  'private.drill.test': ['10.1.2.3'],
  'meta.drill.test': ['169.254.169.254'],
};

const webhookRefusal = /ALLOWED_HOST_LIST/;
const migrationRefusal = /disallowed hosts/;

interface Scene {
  hearth: TestHearth;
  alice: TestUser;
  relay: Listener & { hangUp(): void };
  trap: Listener;
  dns: DrillDns;
}

const slug = (host: string): string => host.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '');

async function hookFor(scene: Scene, url: string): Promise<number> {
  const made = await scene.hearth.call('POST', '/repos/alice/source/hooks', {
    auth: scene.alice.bearer, body: { type: 'gitea', active: true, events: ['push'], config: { url, content_type: 'json' } },
  });
  if (made.status !== 201) throw new Error(`the hook for ${url} was not made: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.id as number;
}

/** Sends the hook's test delivery and answers its task as delivered: refused (with the reason) or not. */
async function deliverTest(scene: Scene, hookId: number): Promise<{ refused: string | null; delivered: boolean; attempts: unknown[] }> {
  await scene.hearth.call('POST', `/repos/alice/source/hooks/${hookId}/tests`, { auth: scene.alice.bearer });
  await drain(scene.hearth);
  const [task] = await scene.hearth.store.db.query<{ refused: string | null; is_delivered: boolean; attempts: unknown[] }>(
    'SELECT refused, is_delivered, attempts FROM hook_task WHERE hook_id = $1 ORDER BY id DESC LIMIT 1', [hookId],
  );
  return { refused: task?.refused ?? null, delivered: task?.is_delivered ?? false, attempts: task?.attempts ?? [] };
}

async function migrate(scene: Scene, address: string, repoName: string, mirror = false): Promise<{ status: number; message: string }> {
  const answer = await scene.hearth.call('POST', '/repos/migrate', { auth: scene.alice.bearer, body: { clone_addr: address, repo_name: repoName, mirror } });
  return { status: answer.status, message: String(answer.body?.message ?? '') };
}

async function taskOf(scene: Scene, repoName: string): Promise<{ status: string; message: string } | undefined> {
  const [task] = await scene.hearth.store.db.query<{ status: string; message: string }>(
    'SELECT status, message FROM migration_task WHERE lower(repo_name) = lower($1) ORDER BY id DESC LIMIT 1', [repoName],
  );
  return task;
}

async function addPushMirror(scene: Scene, address: string): Promise<{ status: number; name: string; message: string }> {
  const answer = await scene.hearth.call('POST', '/repos/alice/source/push_mirrors', {
    auth: scene.alice.bearer, body: { remote_address: address, remote_username: 'alice', remote_password: scene.alice.token, interval: '8h' },
  });
  return { status: answer.status, name: String(answer.body?.remote_name ?? ''), message: String(answer.body?.message ?? '') };
}

async function pushMirrorError(scene: Scene, name: string): Promise<string | undefined> {
  const answer = await scene.hearth.call('GET', `/repos/alice/source/push_mirrors/${name}`, { auth: scene.alice.bearer });
  return answer.body?.last_error;
}

async function syncPushMirrors(scene: Scene): Promise<void> {
  await scene.hearth.call('POST', '/repos/alice/source/push_mirrors-sync', { auth: scene.alice.bearer });
  await drain(scene.hearth);
}

async function syncPullMirror(scene: Scene, repoName: string): Promise<string | undefined> {
  await scene.hearth.call('POST', `/repos/alice/${repoName}/mirror-sync`, { auth: scene.alice.bearer });
  await drain(scene.hearth);
  return (await scene.hearth.call('GET', `/repos/alice/${repoName}`, { auth: scene.alice.bearer })).body?.mirror_last_error;
}

const gitUrl = (host: string, port: number, repo: string): string => `http://${host}:${port}/alice/${repo}.git`;

export async function ssrfDrill(env: DrillEnv): Promise<void> {
  const { log, short } = env;
  const dns = await startDrillDns();
  env.teardown(() => dns.close());
  const previousServers = process.env.HEARTH_TEST_DNS_SERVERS;
  process.env.HEARTH_TEST_DNS_SERVERS = dns.server;
  env.teardown(() => {
    if (previousServers === undefined) delete process.env.HEARTH_TEST_DNS_SERVERS;
    else process.env.HEARTH_TEST_DNS_SERVERS = previousServers;
  });
  for (const [name, addresses] of Object.entries(names)) dns.set(name, [addresses]);

  // allow-lists that name every target: loopback and private ranges, link-local and 0.0.0.0 by CIDR
  const hearth = await env.startHearth({
    HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback,private,169.254.0.0/16,0.0.0.0/32',
    HEARTH__webhook__DELIVER_TIMEOUT: '2',
    HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true',
  });
  const relay = await startRelay(Number(new URL(hearth.rootUrl).port));
  const trap = await startTrap('127.0.0.2', relay.port);
  env.teardown(() => relay.close());
  env.teardown(() => trap.close());
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'source', autoInit: true });
  await drain(hearth);
  const scene: Scene = { hearth, alice, relay, trap, dns };
  const reach = reachable(short);
  const far = unreachable(short);
  log.step(`DNS server ${dns.server}; relay to Hearth on 127.0.0.1 and [::1] port ${relay.port}; trap on 127.0.0.2:${relay.port}`);

  // 1. Allowed: every reachable spelling reaches the relay for each kind of target
  log.step(`allowed by the allow-lists: ${reach.join(', ')}`);
  const hooks = new Map<string, number>();
  const pushMirrors = new Map<string, string>();
  for (const host of reach) {
    const before = relay.accepted;
    const hookId = await hookFor(scene, `http://${host}:${relay.port}/drill-hook`);
    hooks.set(host, hookId);
    const delivery = await deliverTest(scene, hookId);
    log.check(delivery.delivered && delivery.refused === null && delivery.attempts.length === 1, `webhook to ${host} delivered when allowed`, JSON.stringify(delivery));
    const migration = await migrate(scene, gitUrl(host, relay.port, 'source'), `copy-${slug(host)}`);
    await drain(hearth);
    const task = await taskOf(scene, `copy-${slug(host)}`);
    log.check(migration.status === 201 && task?.status === 'finished', `migration from ${host} finished when allowed`, `${migration.status} ${migration.message} ${JSON.stringify(task)}`);
    const pull = await migrate(scene, gitUrl(host, relay.port, 'source'), `pull-${slug(host)}`, true);
    await drain(hearth);
    const pullError = pull.status === 201 ? await syncPullMirror(scene, `pull-${slug(host)}`) : 'not made';
    log.check(pullError === '', `pull mirror of ${host} synced when allowed`, `${pull.status} ${pull.message} ${pullError}`);
    await build.repo(hearth, alice, { name: `push-${slug(host)}` });
    const push = await addPushMirror(scene, gitUrl(host, relay.port, `push-${slug(host)}`));
    pushMirrors.set(host, push.name);
    log.check(push.status === 200, `push mirror to ${host} accepted when allowed`, `${push.status} ${push.message}`);
    log.check(relay.accepted > before, `${host} reached the relay`);
  }
  await syncPushMirrors(scene);
  for (const [host, name] of pushMirrors) {
    const error = await pushMirrorError(scene, name);
    log.check(error === '', `push mirror to ${host} pushed when allowed`, String(error));
  }
  log.step(`allowed by the allow-lists, nothing listening: ${far.join(', ')}`);
  for (const host of far) {
    const delivery = await deliverTest(scene, await hookFor(scene, `http://${host}:9/drill-hook`));
    log.check(delivery.refused === null, `webhook to ${host} not refused when allowed`, String(delivery.refused));
    const migration = await migrate(scene, gitUrl(host, 9, 'source'), `far-${slug(host)}`);
    log.check(migration.status === 201, `migration from ${host} accepted when allowed`, `${migration.status} ${migration.message}`);
    // not cloned: the repository goes, and its job finds nothing to do
    await hearth.call('DELETE', `/repos/alice/far-${slug(host)}`, { auth: alice.bearer });
    const push = await addPushMirror(scene, gitUrl(host, 9, 'x'));
    log.check(push.status === 200, `push mirror to ${host} accepted when allowed`, `${push.status} ${push.message}`);
    if (push.status === 200) await hearth.call('DELETE', `/repos/alice/source/push_mirrors/${push.name}`, { auth: alice.bearer });
  }
  await drain(hearth);

  // 2. The defaults: every target refused with the reason recorded, nothing reaches a listener
  hearth.config.webhook.allowedHostList = 'external';
  hearth.config.migrations.allowLocalNetworks = false;
  const relayBefore = relay.accepted;
  log.step('default allow-lists ([webhook] ALLOWED_HOST_LIST external, [migrations] ALLOW_LOCALNETWORKS false)');
  let refused = 0;
  for (const host of [...reach, ...far]) {
    const port = reach.includes(host) ? relay.port : 9;
    const delivery = await deliverTest(scene, hooks.get(host) ?? (await hookFor(scene, `http://${host}:${port}/drill-hook`)));
    if (log.check(delivery.delivered && webhookRefusal.test(delivery.refused ?? ''), `webhook to ${host} refused with the reason in its delivery log`, String(delivery.refused))) refused++;
    const migration = await migrate(scene, gitUrl(host, port, 'source'), `no-${slug(host)}`);
    const exists = (await hearth.call('GET', `/repos/alice/no-${slug(host)}`, { auth: alice.bearer })).status;
    if (log.check(migration.status === 422 && migrationRefusal.test(migration.message) && exists === 404, `migration from ${host} refused`, `${migration.status} ${migration.message}, repository ${exists}`)) refused++;
    const mirror = await migrate(scene, gitUrl(host, port, 'source'), `nom-${slug(host)}`, true);
    if (log.check(mirror.status === 422 && migrationRefusal.test(mirror.message), `pull mirror of ${host} refused`, `${mirror.status} ${mirror.message}`)) refused++;
    const push = await addPushMirror(scene, gitUrl(host, port, 'x'));
    if (log.check(push.status === 422 && migrationRefusal.test(push.message), `push mirror to ${host} refused`, `${push.status} ${push.message}`)) refused++;
  }
  for (const host of reach) {
    const error = await syncPullMirror(scene, `pull-${slug(host)}`);
    if (log.check(migrationRefusal.test(error ?? ''), `existing pull mirror of ${host}: its sync refused, the reason its last error`, String(error))) refused++;
  }
  await syncPushMirrors(scene);
  for (const [host, name] of pushMirrors) {
    const error = await pushMirrorError(scene, name);
    if (log.check(migrationRefusal.test(error ?? ''), `existing push mirror to ${host}: its push refused, the reason its last error`, String(error))) refused++;
  }
  log.check(relay.accepted === relayBefore, 'no refused target reached the relay', `${relay.accepted - relayBefore} connections`);
  log.figure('refused with the reason recorded', refused);

  // 3. Rebinding: a name that answers an allowed address first, a refused one after
  hearth.config.webhook.allowedHostList = '127.0.0.1/32';
  hearth.config.migrations.allowLocalNetworks = true;
  hearth.config.migrations.blockedDomains = ['127.0.0.2/32'];
  const flip = 'flip.drill.test';
  const flipping = [['127.0.0.1'], ['127.0.0.2']];
  log.step(`rebinding: ${flip} answers 127.0.0.1 (allowed), then 127.0.0.2 (refused; the trap listens there)`);
  dns.set(flip, [['127.0.0.1']]);
  const flipPull = await migrate(scene, gitUrl(flip, relay.port, 'source'), 'pull-flip', true);
  await drain(hearth);
  await build.repo(hearth, alice, { name: 'push-flip' });
  const flipPush = await addPushMirror(scene, gitUrl(flip, relay.port, 'push-flip'));
  log.check(flipPull.status === 201 && flipPush.status === 200, 'mirrors of the rebinding name made while it answers 127.0.0.1', `${flipPull.status} ${flipPush.status}`);
  const flipHook = await hookFor(scene, `http://${flip}:${relay.port}/drill-hook`);
  dns.set(flip, flipping);
  const first = await deliverTest(scene, flipHook);
  log.check(first.refused === null && first.attempts.length === 1, 'webhook: the connection went to the address checked (127.0.0.1)', JSON.stringify(first));
  // the kept connection goes, so the next delivery connects anew: resolved again, checked again, refused
  relay.hangUp();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await deliverTest(scene, flipHook);
  log.check(/deny 'flip\.drill\.test\(127\.0\.0\.2\)'/.test(second.refused ?? ''), 'webhook: the next connection re-checked the new answer and was refused', String(second.refused));
  dns.set(flip, flipping);
  const flipMigration = await migrate(scene, gitUrl(flip, relay.port, 'source'), 'copy-flip');
  await drain(hearth);
  const flipTask = await taskOf(scene, 'copy-flip');
  log.check(flipMigration.status === 201 && flipTask?.status === 'failed' && migrationRefusal.test(flipTask.message), 'migration: checked at the API (127.0.0.1), re-checked in the worker (127.0.0.2) and refused, the reason on its task', `${flipMigration.status} ${JSON.stringify(flipTask)}`);
  dns.set(flip, flipping);
  const flipSync = await syncPullMirror(scene, 'pull-flip');
  log.check(flipSync === '', 'pull mirror: fetched from the address checked, not from a second answer', String(flipSync));
  dns.set(flip, flipping);
  await syncPushMirrors(scene);
  const flipPushError = await pushMirrorError(scene, flipPush.name);
  log.check(flipPushError === '', 'push mirror: pushed to the address checked, not to a second answer', String(flipPushError));
  log.check(trap.accepted === 0, 'nothing reached the rebinding target (the trap on 127.0.0.2)', `${trap.accepted} connections`);

  // 4. Redirects from an allowed target to a refused one
  const redirector = await startRedirector(`http://127.0.0.2:${relay.port}`);
  env.teardown(() => redirector.close());
  log.step(`redirects: 127.0.0.1:${redirector.port} (allowed) answers 302 to 127.0.0.2:${relay.port} (refused)`);
  const redirected = await deliverTest(scene, await hookFor(scene, `http://127.0.0.1:${redirector.port}/drill-hook`));
  log.check(/deny '127\.0\.0\.2\(127\.0\.0\.2\)'/.test(redirected.refused ?? ''), 'webhook: the redirect to a refused address was refused, the reason in its delivery log', String(redirected.refused));
  const viaRedirect = await migrate(scene, `http://127.0.0.1:${redirector.port}/alice/source.git`, 'copy-redirect');
  await drain(hearth);
  const redirectTask = await taskOf(scene, 'copy-redirect');
  log.check(viaRedirect.status === 201 && redirectTask?.status === 'failed' && redirectTask.message !== '', 'migration: the redirect was not followed, the failure on its task', `${viaRedirect.status} ${JSON.stringify(redirectTask)}`);
  await build.repo(hearth, alice, { name: 'push-redirect' });
  const redirectPush = await addPushMirror(scene, `http://127.0.0.1:${redirector.port}/alice/push-redirect.git`);
  await syncPushMirrors(scene);
  const redirectPushError = await pushMirrorError(scene, redirectPush.name);
  log.check(Boolean(redirectPushError), 'push mirror: the redirect was not followed, the failure its last error', String(redirectPushError));
  log.check(redirector.accepted >= 3, 'the redirector was asked', `${redirector.accepted} connections`);
  log.check(trap.accepted === 0, 'nothing reached the redirect target (the trap on 127.0.0.2)', `${trap.accepted} connections`);
  log.figure('checks', log.checks);
  log.figure('findings', log.findings.length);
}
