import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { gitAsUser, median, timeGit, type GitFigure } from './git-bench.js';

/**
 * Migration and pull-mirror sync through Hearth (API call, `migrate` / `mirror-sync` job in a worker process, git
 * fetch over Hearth's own smart HTTP, branch records) beside plain git doing the same transfer over the same HTTP:
 * `git clone --mirror` of the 2,000-commit repository, and `git fetch` of one new commit into that clone.
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

/** Polls the database every 10 ms until `sql` answers a row. */
async function waitFor(db: pg.Client, sql: string, params: unknown[], what: string): Promise<void> {
  for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
    if ((await db.query(sql, params)).rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not finish in 5 minutes`);
}

export async function measureMirrors(work: string, target: MirrorTarget): Promise<GitFigure[]> {
  const home = path.join(work, 'home');
  const db = new pg.Client({ connectionString: target.databaseUrl });
  await db.connect();
  try {
    const cloneUrl = new URL(`${target.username}/${target.sourceRepo}.git`, target.rootUrl);
    const authedUrl = new URL(cloneUrl);
    authedUrl.username = target.username;
    authedUrl.password = target.token;
    const tip = (await gitAsUser(home, ['--git-dir', target.sourceDir, 'rev-parse', 'refs/heads/main'])).trim();

    const baselineDir = path.join(work, 'baseline-mirror.git');
    const baselineClone = await timeGit(home, ['clone', '--quiet', '--mirror', authedUrl.toString(), baselineDir]);
    const started = performance.now();
    await api(target, 'POST', '/repos/migrate', {
      clone_addr: cloneUrl.toString(), repo_name: 'mirror', mirror: true, mirror_interval: '0', auth_username: target.username, auth_password: target.token,
    });
    await waitFor(db, `SELECT 1 FROM migration_task WHERE repo_name = 'mirror' AND status IN ('finished', 'failed')`, [], 'the migration');
    const migration = (performance.now() - started) / 1000;
    const [task] = (await db.query(`SELECT status, message FROM migration_task WHERE repo_name = 'mirror'`)).rows as Array<{ status: string; message: string }>;
    if (task.status !== 'finished') throw new Error(`the migration failed: ${task.message}`);
    const mirrorDir = path.join(path.dirname(target.sourceDir), 'mirror.git');
    if ((await gitAsUser(home, ['--git-dir', mirrorDir, 'rev-parse', 'refs/heads/main'])).trim() !== tip) throw new Error('the migrated mirror lacks the tip');
    const figures: GitFigure[] = [
      { name: 'migration (mirror) vs git clone --mirror, 2,000 commits', seconds: migration, baselineSeconds: baselineClone, timeRatioToBaseline: migration / baselineClone, runs: 1, serverRssMiB: target.rss() },
    ];

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
      syncs.git.push(await timeGit(home, ['--git-dir', baselineDir, 'fetch', '--quiet', '--prune', 'origin']));
      const begin = performance.now();
      await api(target, 'POST', `/repos/${target.username}/mirror/mirror-sync`);
      await waitFor(
        db,
        `SELECT 1 FROM mirror m JOIN repository r ON r.id = m.repo_id WHERE r.name = 'mirror' AND m.synced_refs->>'refs/heads/main' = $1`,
        [pushed],
        'the mirror sync',
      );
      syncs.hearth.push((performance.now() - begin) / 1000);
    }
    const seconds = median(syncs.hearth);
    const baselineSeconds = median(syncs.git);
    figures.push({ name: 'mirror-sync, one new commit vs git fetch', seconds, baselineSeconds, timeRatioToBaseline: seconds / baselineSeconds, runs: repeats, serverRssMiB: target.rss() });
    return figures;
  } finally {
    await db.end();
  }
}
