import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { wakeChannel } from '../../jobs/queue.js';
import { gitAsUser, median, timeGit, type GitFigure } from './git-bench.js';

/**
 * Migration and pull-mirror sync through Hearth (API call, `migrate` / `mirror-sync` job in a worker process, git
 * fetch over Hearth's own smart HTTP, branch records) beside plain git doing the same transfer over the same HTTP:
 * `git clone --mirror` of the 2,000-commit repository, and `git fetch` of one new commit into that clone. Hearth's
 * and git's runs alternate, so both see the same load; each figure is the median of three.
 */
export interface MirrorTarget {
  /** http://127.0.0.1:PORT/ of the web process. */
  rootUrl: string;
  username: string;
  token: string;
  /** The repository the git benchmark pushed the history into, and its directory on disk. */
  sourceRepo: string;
  sourceDir: string;
  databaseUrl: string;
  rss: () => number;
}

const repeats = 3;

async function api(target: MirrorTarget, method: string, apiPath: string, body?: unknown): Promise<unknown> {
  const response = await fetch(new URL(`api/v1${apiPath}`, target.rootUrl), {
    method,
    headers: { Authorization: `token ${target.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${apiPath}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Asks `sql` again whenever a job is inserted (the queue's wake-up notification: a migration's last transaction and a
 * sync's recording both enqueue), and every 50 ms besides, until it answers a row; so the wait adds no polling delay.
 */
async function waitFor(db: pg.Client, sql: string, params: unknown[], what: string): Promise<void> {
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
    const woken = new Promise<void>((resolve) => {
      const timer = setTimeout(done, 50);
      function done(): void {
        clearTimeout(timer);
        db.off('notification', done);
        resolve();
      }
      db.on('notification', done);
    });
    if ((await db.query(sql, params)).rowCount) return;
    await woken;
  }
  throw new Error(`${what} did not finish in 5 minutes`);
}

/** Medians of Hearth's runs and git's. */
function figure(name: string, runs: { hearth: number[]; git: number[] }, target: MirrorTarget): GitFigure {
  const seconds = median(runs.hearth);
  const baselineSeconds = median(runs.git);
  return { name, seconds, baselineSeconds, timeRatioToBaseline: seconds / baselineSeconds, runs: runs.hearth.length, serverRssMiB: target.rss() };
}

export async function measureMirrors(work: string, target: MirrorTarget): Promise<GitFigure[]> {
  const home = path.join(work, 'home');
  const db = new pg.Client({ connectionString: target.databaseUrl });
  await db.connect();
  await db.query(`LISTEN ${wakeChannel}`);
  try {
    const cloneUrl = new URL(`${target.username}/${target.sourceRepo}.git`, target.rootUrl);
    const authedUrl = new URL(cloneUrl);
    authedUrl.username = target.username;
    authedUrl.password = target.token;
    const tip = (await gitAsUser(home, ['--git-dir', target.sourceDir, 'rev-parse', 'refs/heads/main'])).trim();

    // Each round: a plain mirror clone, then a migration into a new mirror; the last pair is kept for the syncs.
    const migrations = { hearth: [] as number[], git: [] as number[] };
    const baselineDir = (i: number): string => path.join(work, `baseline-mirror-${i}.git`);
    for (let i = 0; i < repeats; i++) {
      migrations.git.push(await timeGit(home, ['clone', '--quiet', '--mirror', authedUrl.toString(), baselineDir(i)]));
      const name = `mirror-${i}`;
      const started = performance.now();
      await api(target, 'POST', '/repos/migrate', {
        clone_addr: cloneUrl.toString(), repo_name: name, mirror: true, mirror_interval: '0', auth_username: target.username, auth_password: target.token,
      });
      await waitFor(db, `SELECT 1 FROM migration_task WHERE repo_name = $1 AND status IN ('finished', 'failed')`, [name], 'the migration');
      migrations.hearth.push((performance.now() - started) / 1000);
      const [task] = (await db.query(`SELECT status, message FROM migration_task WHERE repo_name = $1`, [name])).rows as Array<{ status: string; message: string }>;
      if (task.status !== 'finished') throw new Error(`the migration failed: ${task.message}`);
      const mirrorDir = path.join(path.dirname(target.sourceDir), `${name}.git`);
      if ((await gitAsUser(home, ['--git-dir', mirrorDir, 'rev-parse', 'refs/heads/main'])).trim() !== tip) throw new Error('the migrated mirror lacks the tip');
    }
    const mirror = `mirror-${repeats - 1}`;
    const figures: GitFigure[] = [figure('migration (mirror) vs git clone --mirror, 2,000 commits', migrations, target)];

    // One new commit pushed to the source each round (untimed), then synced by each side.
    const checkout = path.join(work, 'mirror-checkout');
    await gitAsUser(home, ['clone', '--quiet', '--no-checkout', `file://${target.sourceDir}`, checkout]);
    await gitAsUser(home, ['-C', checkout, 'checkout', '--quiet', 'main']);
    const syncs = { hearth: [] as number[], git: [] as number[] };
    for (let i = 0; i < repeats; i++) {
      writeFileSync(path.join(checkout, `mirror-bench-${i}.txt`), `change ${i}\n`);
      await gitAsUser(home, ['-C', checkout, 'add', '.']);
      await gitAsUser(home, ['-C', checkout, 'commit', '--quiet', '-m', `Mirror change ${i + 1}`]);
      await gitAsUser(home, ['-C', checkout, 'push', '--quiet', authedUrl.toString(), 'HEAD:refs/heads/main']);
      const pushed = (await gitAsUser(home, ['-C', checkout, 'rev-parse', 'HEAD'])).trim();
      // the worker's branch sync of that push is done before anything is timed
      await waitFor(
        db, `SELECT 1 FROM branch b JOIN repository r ON r.id = b.repo_id WHERE r.name = $2 AND b.name = 'main' AND b.commit_id = $1`,
        [pushed, target.sourceRepo], 'the branch sync of the source',
      );
      syncs.git.push(await timeGit(home, ['--git-dir', baselineDir(repeats - 1), 'fetch', '--quiet', '--prune', 'origin']));
      const begin = performance.now();
      await api(target, 'POST', `/repos/${target.username}/${mirror}/mirror-sync`);
      await waitFor(
        db,
        `SELECT 1 FROM mirror m JOIN repository r ON r.id = m.repo_id WHERE r.name = $2 AND m.synced_refs->>'refs/heads/main' = $1`,
        [pushed, mirror],
        'the mirror sync',
      );
      syncs.hearth.push((performance.now() - begin) / 1000);
    }
    figures.push(figure('mirror-sync, one new commit vs git fetch', syncs, target));
    return figures;
  } finally {
    await db.end();
  }
}
