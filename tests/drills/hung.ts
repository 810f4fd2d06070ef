import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import type { TestHearth, TestUser } from '../helpers/hearth.js';
import { processRows } from '../helpers/processes.js';
import { remote } from '../git/git-client.js';
import { until, type DrillEnv } from './drill.js';
import { startApiHangingRelay, startHungRemote } from './listeners.js';

/**
 * The hung remote drill: a migration, a pull-mirror sync and a push-mirror push against a remote that accepts the
 * connection and never answers, then against one that answers a byte a second. Each must end within its timeout
 * (`[git.timeout] MIGRATE` for migrations, `MIRROR` for mirrors; shortened here) with the reason recorded, its
 * connections closed (the remote sees them close, and no git process is left), and no retry against the remote, while
 * another mirror keeps syncing.
 */

interface Scene {
  hearth: TestHearth;
  alice: TestUser;
  timeoutS: number;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

async function mirrorState(hearth: TestHearth, repoName: string): Promise<{ last_error: string; updated: Date | null }> {
  const [row] = await hearth.store.db.query<{ last_error: string; updated: Date | null }>(
    'SELECT m.last_error, m.updated FROM mirror m JOIN repository r ON r.id = m.repo_id WHERE r.lower_name = lower($1)', [repoName],
  );
  return row;
}

/** git processes still running against the remote's port. */
const gitLeft = (port: number): string[] => processRows().filter((row) => /git/.test(row.args) && row.args.includes(`:${port}/`)).map((row) => `${row.pid} ${row.args}`);

async function drillRemote(env: DrillEnv, scene: Scene, kind: 'silent' | 'trickle'): Promise<void> {
  const { log } = env;
  const { hearth, alice, timeoutS } = scene;
  const hung = await startHungRemote(kind);
  env.teardown(() => hung.close());
  const address = (repo: string): string => `http://127.0.0.1:${hung.port}/alice/${repo}.git`;
  log.step(`${kind} remote on 127.0.0.1:${hung.port}: a migration, a pull-mirror sync and a push-mirror push at once`);

  // the pull mirror was made from a working source; its address now names the hung remote
  await hearth.store.db.query(
    'UPDATE mirror SET remote_address = $1, last_error = \'\' WHERE repo_id = (SELECT id FROM repository WHERE lower_name = $2)',
    [address('source'), `pull-${kind}`],
  );
  await build.repo(hearth, alice, { name: `push-source-${kind}`, autoInit: true });
  const push = await hearth.call('POST', `/repos/alice/push-source-${kind}/push_mirrors`, {
    auth: alice.bearer, body: { remote_address: address('target'), remote_username: 'alice', remote_password: alice.token, interval: '8h' },
  });
  log.check(push.status === 200, `push mirror to the ${kind} remote made`, `${push.status} ${JSON.stringify(push.body)}`);
  const started = Date.now();
  const migration = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: address('source'), repo_name: `copy-${kind}` } });
  log.check(migration.status === 201, `migration from the ${kind} remote accepted`, String(migration.status));
  await hearth.call('POST', `/repos/alice/pull-${kind}/mirror-sync`, { auth: alice.bearer });
  await hearth.call('POST', `/repos/alice/push-source-${kind}/push_mirrors-sync`, { auth: alice.bearer });

  // meanwhile the healthy mirror keeps syncing
  let healthySyncs = 0;
  let hungEnded = false;
  const ended = { migration: 0, pull: 0, push: 0 };
  const healthy = (async () => {
    while (!hungEnded) {
      const before = (await mirrorState(hearth, 'healthy')).updated?.getTime() ?? 0;
      await hearth.call('POST', '/repos/alice/healthy/mirror-sync', { auth: alice.bearer });
      const after = await until(timeoutS * 1000, async () => {
        const state = await mirrorState(hearth, 'healthy');
        return (state.updated?.getTime() ?? 0) > before && state.last_error === '' ? state : null;
      }, 50);
      if (after && !hungEnded) healthySyncs++;
    }
  })();

  const limit = (timeoutS + (env.short ? 8 : 15)) * 1000;
  const [task, pull, pushed] = await Promise.all([
    until(limit, async () => {
      const [row] = await hearth.store.db.query<{ status: string; message: string }>(`SELECT status, message FROM migration_task WHERE repo_name = $1 AND status IN ('failed', 'finished')`, [`copy-${kind}`]);
      if (row && !ended.migration) ended.migration = Date.now() - started;
      return row;
    }),
    until(limit, async () => {
      const state = await mirrorState(hearth, `pull-${kind}`);
      if (state.last_error && !ended.pull) ended.pull = Date.now() - started;
      return state.last_error ? state : null;
    }),
    until(limit, async () => {
      const [row] = await hearth.store.db.query<{ last_error: string }>(`SELECT last_error FROM push_mirror WHERE remote_address = $1 AND last_error <> ''`, [address('target')]);
      if (row && !ended.push) ended.push = Date.now() - started;
      return row;
    }),
  ]);
  hungEnded = true;
  await healthy;
  const reason = /timed out after \d+ s/;
  const within = (ms: number): boolean => ms > 0 && ms <= (timeoutS + (env.short ? 6 : 10)) * 1000;
  log.check(task?.status === 'failed' && reason.test(task.message) && within(ended.migration), `migration from the ${kind} remote ended within [git.timeout] MIGRATE, the reason on its task`, `${seconds(ended.migration)} s ${JSON.stringify(task)}`);
  log.check(Boolean(pull && reason.test(pull.last_error)) && within(ended.pull), `pull-mirror sync from the ${kind} remote ended within [git.timeout] MIRROR, the reason its last error`, `${seconds(ended.pull)} s ${JSON.stringify(pull)}`);
  log.check(Boolean(pushed && reason.test(pushed.last_error)) && within(ended.push), `push-mirror push to the ${kind} remote ended within [git.timeout] MIRROR, the reason its last error`, `${seconds(ended.push)} s ${JSON.stringify(pushed)}`);
  log.figure(`${kind}: migration, pull sync, push ended after (s)`, `${seconds(ended.migration)}, ${seconds(ended.pull)}, ${seconds(ended.push)}`);
  log.check(healthySyncs >= 1, `another mirror kept syncing meanwhile (${healthySyncs} syncs)`);
  log.figure(`${kind}: healthy mirror syncs meanwhile`, healthySyncs);

  const closed = await until(5_000, async () => hung.open === 0);
  log.check(closed, `every connection to the ${kind} remote closed`, `${hung.open} of ${hung.accepted} still open`);
  const left = await until(5_000, async () => gitLeft(hung.port).length === 0);
  log.check(left, `no git process left against the ${kind} remote`, gitLeft(hung.port).join('; '));
  const accepted = hung.accepted;
  await new Promise((resolve) => setTimeout(resolve, (env.short ? 2 : 10) * 1000));
  log.check(hung.accepted === accepted, `no retry reached the ${kind} remote after the failures`, `${hung.accepted - accepted} more connections`);
  log.figure(`${kind}: connections accepted, still open`, `${hung.accepted}, ${hung.open}`);
  // a push-mirror job that failed is retried by pg-boss a bounded number of times, 30 s apart and more
  const [job] = await hearth.store.db.query<{ retry_limit: number; state: string }>(`SELECT retry_limit, state FROM pgboss.job WHERE name = 'push-mirror' ORDER BY created_on DESC LIMIT 1`);
  log.check(Boolean(job) && job.retry_limit <= 3, 'the push-mirror job retries a bounded number of times', JSON.stringify(job));
  await hearth.store.db.query(`DELETE FROM pgboss.job WHERE name = 'push-mirror' AND state = 'retry'`);
}

/** A migration (service gitea, with issues) whose clone works and whose source API never answers: ends within MIGRATE. */
async function drillSourceApi(env: DrillEnv, scene: Scene): Promise<void> {
  const { log } = env;
  const { hearth, alice, timeoutS } = scene;
  const relay = await startApiHangingRelay(Number(new URL(hearth.rootUrl).port));
  env.teardown(() => relay.close());
  log.step(`source API that never answers (git served) on 127.0.0.1:${relay.port}: a migration with service gitea and issues`);
  const started = Date.now();
  const made = await hearth.call('POST', '/repos/migrate', {
    auth: alice.bearer, body: { clone_addr: `http://127.0.0.1:${relay.port}/alice/source.git`, repo_name: 'copy-api', service: 'gitea', issues: true, labels: true },
  });
  log.check(made.status === 201, 'migration from the hanging API accepted', String(made.status));
  const task = await until((timeoutS + 15) * 1000, async () => {
    const [row] = await hearth.store.db.query<{ status: string; message: string }>(`SELECT status, message FROM migration_task WHERE repo_name = 'copy-api' AND status IN ('failed', 'finished')`);
    return row;
  });
  const took = Date.now() - started;
  log.check(task?.status === 'failed' && /source API did not answer/.test(task.message) && took <= (timeoutS + (env.short ? 6 : 10)) * 1000,
    'migration whose source API hangs ended within [git.timeout] MIGRATE, the reason on its task', `${seconds(took)} s ${JSON.stringify(task)}`);
  log.figure('source API: migration ended after (s)', seconds(took));
  const closed = await until(5_000, async () => relay.apiOpen() === 0);
  log.check(closed, 'every connection to the hanging API closed', `${relay.apiOpen()} still open`);
}

export async function hungDrill(env: DrillEnv): Promise<void> {
  const timeoutS = env.short ? 2 : 10;
  const hearth = await env.startHearth({
    'HEARTH__git.timeout__MIGRATE': String(timeoutS),
    'HEARTH__git.timeout__MIRROR': String(timeoutS),
    HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true',
  });
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'source', autoInit: true });
  for (const name of ['healthy', 'pull-silent', 'pull-trickle']) {
    const made = await hearth.call('POST', '/repos/migrate', { auth: alice.bearer, body: { clone_addr: remote(hearth, 'alice', 'source'), repo_name: name, mirror: true } });
    if (made.status !== 201) throw new Error(`mirror ${name} not made: ${made.status}`);
  }
  await drain(hearth);
  env.log.step(`[git.timeout] MIGRATE and MIRROR ${timeoutS} s; a worker runs the actors`);
  await hearth.startWorker();
  const scene: Scene = { hearth, alice, timeoutS };
  await drillRemote(env, scene, 'silent');
  await drillRemote(env, scene, 'trickle');
  await drillSourceApi(env, scene);
  env.log.figure('checks', env.log.checks);
  env.log.figure('findings', env.log.findings.length);
}
