import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { pino } from 'pino';
import { openStore } from '../../db/process/boot.js';
import { loadConfig } from '../../db/process/config.js';
import { openDatabase, type Database } from '../../db/process/database-url.js';
import { freePort } from '../../db/process/startup.js';
import { root } from '../helpers/processes.js';
import { measureStart, type StartFigure } from './start-bench.js';
import { inTx } from '../../db/data-source.js';
import { okOnDisk } from '../git/git-client.js';
import { createBranch } from '../../db/models/code/branches.js';
import { createRepository } from '../../db/models/repos/repos.js';
import { createToken } from '../../db/models/users/tokens.js';
import { createUser } from '../../db/models/users/users.js';
import { createLabel } from '../../db/models/orgs/labels.js';
import type { Tx } from '../../db/data-source.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { buildServices, type Services } from '../../db/services.js';
import { measureGit, pushHistory, type GitFigure, type GitHistory, type GitTarget } from './git-bench.js';
import { measureMirrors } from './mirror-bench.js';
import { measureNpmInstall, type NpmInstallFigure } from './npm-bench.js';
import { measurePackages, type PackageFigure } from './package-bench.js';
import { measureWebhooks, type WebhookFigures } from './webhook-bench.js';
import { measurePulls } from './pull-bench.js';
import { waitForQueuesDrained } from './queue-drain.js';
import { addKeptJobs, addMetricsFigures, checkScrape } from './ops-bench.js';

/**
 * `npm run bench`: Hearth's hot read paths under load, each beside a same-run baseline (bare Express 5 and
 * one primary-key query with `pg`), then git transport over Hearth's smart HTTP and SSH beside git between local
 * repositories (git-bench.ts). Every server and every load generator is its own process.
 * Then a 100 MiB generic package file up and down beside the same bytes written and read on disk (package-bench.ts),
 * and `npm install` of a package with 200 versions beside installing its tarball from a file (npm-bench.ts).
 * BENCH_DURATION (seconds, default 10) sets each HTTP figure's run; DATABASE_URL selects an external server;
 * BENCH_PACKAGE_MIB the package file's size; `npm run bench -- ssh` runs the git figures alone (file://, HTTP and SSH), `-- packages` runs the package figures alone, `-- mirrors` the
 * migration and mirror-sync figures, `-- pulls` the pull request ones.
 */
const self = fileURLToPath(import.meta.url);
const autocannonCli = path.join(root, 'node_modules', 'autocannon', 'autocannon.js');
const connections = 64;
const username = 'bench';
const branchCount = 20;
const repos = { plain: 'hello', branches: 'branchy', pushed: 'history', issues: 'tracker', inbox: 'inbox', pulls: 'pulled' } as const;
const issueCount = 10_000;

interface Scenario {
  name: string;
  server: 'baseline' | 'hearth';
  path: string;
  headers?: Record<string, string>;
  /** A POST with this JSON body instead of a GET. */
  post?: unknown;
}

interface Figure {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ratioToBaseline: number;
  serverRssMiB: number;
}

interface Seed {
  userId: number;
  token: string;
}

/** Another branch on a commit of its own, each child of the default branch's head, so every head is a different commit. */
async function commitBranches(dir: string, count: number): Promise<Array<{ name: string; commit: string }>> {
  const identity = { GIT_AUTHOR_NAME: username, GIT_AUTHOR_EMAIL: `${username}@example.com`, GIT_COMMITTER_NAME: username, GIT_COMMITTER_EMAIL: `${username}@example.com` };
  const head = await okOnDisk(['rev-parse', 'HEAD'], dir);
  const tree = await okOnDisk(['rev-parse', 'HEAD^{tree}'], dir);
  const branches: Array<{ name: string; commit: string }> = [];
  for (let i = 1; i <= count; i++) {
    const commit = await okOnDisk(['commit-tree', tree, '-p', head, '-m', `Work on feature ${i}`], dir, identity);
    branches.push({ name: `feature/${String(i).padStart(2, '0')}`, commit });
  }
  return branches;
}

/** The baseline: Express 5 and a pg pool of Hearth's size answering one primary-key query. */
function serveBaseline(): void {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const app = express();
  app.disable('x-powered-by');
  app.get('/user/:id', async (req, res) => {
    const { rows } = await pool.query('SELECT * FROM "user" WHERE id = $1', [Number(req.params.id)]);
    if (rows.length === 0) res.status(404).json({ message: 'not found' });
    else res.json(rows[0]);
  });
  app.listen(Number(process.env.PORT));
}

async function createBenchDatabase(adminUrl: string): Promise<string> {
  const name = `hearth_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropBenchDatabase(adminUrl: string, benchUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${new URL(benchUrl).pathname.slice(1)} WITH (FORCE)`);
  await admin.end();
}

/**
 * Migrates (openStore does) and seeds through the model operations, with the production password hash: the
 * user and its token, a public repository with a README, one with 20 branches, and an empty one to push into.
 */
async function seed(databaseUrl: string, ctx: Services): Promise<Seed> {
  const store = await openStore(databaseUrl, 'web');
  try {
    const seeded = await inTx(store, async (tx) => {
      const user = await createUser(tx, { username, email: `${username}@example.com`, password: 'bench-password' }, { passwordAlgo: ctx.config.security.passwordHashAlgo });
      const { token } = await createToken(tx, user, { name: 'bench', scopes: ['all'] });
      await createRepository(tx, ctx, user, user, { name: repos.plain, description: 'A public repository', auto_init: true });
      const branchy = await createRepository(tx, ctx, user, user, { name: repos.branches, auto_init: true });
      for (const { name, commit } of await commitBranches(ctx.git.pathOf(username, repos.branches), branchCount - 1)) {
        await createBranch(tx, ctx.git, branchy, user, name, commit);
      }
      await createRepository(tx, ctx, user, user, { name: repos.pushed });
      await seedIssues(tx, await createRepository(tx, ctx, user, user, { name: repos.issues }), user);
      await createRepository(tx, ctx, user, user, { name: repos.inbox });
      await createRepository(tx, ctx, user, user, { name: repos.pulls, auto_init: true });
      return { userId: user.id, token };
    });
    // Tables grown by thousands of rows at once have neither statistics nor a visibility map until autovacuum's turn
    // (which may be minutes away, or never where a test server turns it off): the planner would misjudge them.
    await store.ds.query('VACUUM ANALYZE issue, issue_label, issue_assignees, label');
    return seeded;
  } finally {
    await store.close();
  }
}

/**
 * 10,000 issues (every fifth closed) with two of five labels and the owner assigned on every other one. The labels
 * are made by the model operation; the issues in bulk SQL, as createIssue's per-issue label recount would make
 * seeding quadratic. The index counter and repository counters are set as createIssue leaves them.
 */
async function seedIssues(tx: Tx, repo: RepoRow, user: UserRow): Promise<void> {
  const labels = [];
  for (const name of ['bug', 'feature', 'docs', 'ui', 'backend']) labels.push(await createLabel(tx, { repoId: repo.id }, { name, color: '00aaff' }));
  await tx.query(
    `INSERT INTO issue (repo_id, index, poster_id, title, content, is_closed, closed_at, created, updated)
     SELECT $1, n, $2, 'Issue number ' || n, 'Something to do about ' || n, n % 5 = 0, CASE WHEN n % 5 = 0 THEN now() END,
       now() - (($3 - n) * interval '1 minute'), now() - (($3 - n) * interval '1 minute')
     FROM generate_series(1, $3) AS n`,
    [repo.id, user.id, issueCount],
  );
  const labelIds = labels.map((label) => label.id);
  await tx.query(
    `INSERT INTO issue_label (issue_id, label_id)
     SELECT i.id, ($2::bigint[])[1 + (i.index % 5)::int] FROM issue i WHERE i.repo_id = $1
     UNION SELECT i.id, ($2::bigint[])[1 + ((i.index + 2) % 5)::int] FROM issue i WHERE i.repo_id = $1`,
    [repo.id, labelIds],
  );
  await tx.query('INSERT INTO issue_assignees (issue_id, assignee_id) SELECT id, $2 FROM issue WHERE repo_id = $1 AND index % 2 = 0', [repo.id, user.id]);
  await tx.query('INSERT INTO issue_index (repo_id, max_index) VALUES ($1, $2)', [repo.id, issueCount]);
  await tx.query(
    `UPDATE repository SET num_issues = $2, num_closed_issues = (SELECT count(*) FROM issue WHERE repo_id = $1 AND is_closed) WHERE id = $1`,
    [repo.id, issueCount],
  );
  await tx.query(
    `UPDATE label l SET num_issues = (SELECT count(*) FROM issue_label il WHERE il.label_id = l.id) WHERE l.repo_id = $1`, [repo.id],
  );
}

async function startServer(args: string[], env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  // tsx compiles every module at start: on a loaded machine that alone can take over half a minute
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} did not listen on port ${port}`);
}

/** A worker process running every actor, once it says it is ready. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['--import', 'tsx', 'workers/worker.ts'], { cwd: root, env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    worker.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('worker ready')) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`the worker exited with ${code}`)));
  });
  worker.stdout!.resume();
  return worker;
}

/**
 * The ssh process (api/ssh/server.ts) once it says it is ready, a key for the bench user added through the API, and
 * the git figures' SSH target: the pushed repository's URL and an OpenSSH command pinned to the generated host key.
 */
async function startSsh(env: NodeJS.ProcessEnv, scratch: string, hearthPort: number, token: string): Promise<{ child: ChildProcess; ssh: NonNullable<GitTarget['ssh']> }> {
  const port = await freePort();
  // BENCH_SSH_NODE_ARGS: Node options for the ssh process alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/ssh-profile`
  const nodeArgs = (process.env.BENCH_SSH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/ssh/server.ts'], {
    cwd: root, env: { ...env, LOG_LEVEL: 'info', HEARTH__server__SSH_LISTEN_PORT: String(port), HEARTH__server__SSH_LISTEN_HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const listen = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (!seen.includes('ssh ready')) return;
      child.stdout!.off('data', listen);
      child.stdout!.resume();
      resolve();
    };
    child.stdout!.on('data', listen);
    child.once('exit', (code) => reject(new Error(`the ssh process exited with ${code}`)));
  });
  const keyFile = path.join(scratch, 'bench-ssh-key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bench', '-f', keyFile]);
  const added = await fetch(`http://127.0.0.1:${hearthPort}/api/v1/user/keys`, {
    method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ title: 'bench', key: readFileSync(`${keyFile}.pub`, 'utf8').trim() }),
  });
  if (added.status !== 201) throw new Error(`adding the bench SSH key answered ${added.status}`);
  const hostKey = readFileSync(path.join(scratch, 'ssh', 'hearth.ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const knownHosts = path.join(scratch, 'bench-known-hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  const command = `ssh -F /dev/null -i ${keyFile} -o IdentitiesOnly=yes -o IdentityAgent=none -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes -o BatchMode=yes`;
  return { child, ssh: { url: `ssh://git@127.0.0.1:${port}/${username}/${repos.pushed}.git`, command, rss: () => rssMiB(child.pid!) } };
}

/** The aim for git over SSH: a clone within 1.3× of file:// and no more than 10 % slower than over HTTP. */
function printSshAim(git: GitFigure[]): void {
  const http = git.find((f) => f.name === 'git clone --bare, whole history');
  const ssh = git.find((f) => f.name === 'git clone --bare over SSH, whole history');
  if (!http || !ssh) return;
  console.log(`\nSSH clone: ${ssh.timeRatioToBaseline.toFixed(2)}× the time of file:// (aim ≤ 1.30×), ` +
    `${(ssh.seconds / http.seconds).toFixed(2)}× the time over HTTP (aim ≤ 1.10×)`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface Load {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** autocannon in its own process, so the load generator does not share an event loop with anything measured. */
async function load(url: string, seconds: number, headers: Record<string, string> = {}, post?: unknown, warmUp = false): Promise<Load> {
  const allHeaders = post === undefined ? headers : { ...headers, 'Content-Type': 'application/json' };
  const headerArgs = Object.entries(allHeaders).flatMap(([key, value]) => ['-H', `${key}=${value}`]);
  const postArgs = post === undefined ? [] : ['-m', 'POST', '-b', JSON.stringify(post)];
  const child = spawn(process.execPath, [autocannonCli, '-c', String(connections), '-d', String(seconds), '-j', ...headerArgs, ...postArgs, url], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  const result = JSON.parse(output) as {
    errors: number;
    non2xx: number;
    '2xx': number;
    requests: { average: number };
    latency: { p50: number; p99: number };
  };
  // a warm-up may end before the first answers of a cold server (prepared statements, JIT) come back
  if (result.errors > 0 || result.non2xx > 0 || (result['2xx'] === 0 && !warmUp)) {
    throw new Error(`${url}: ${result['2xx']} answers 2xx, ${result.non2xx} other answers, ${result.errors} errors`);
  }
  return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
}

async function measure(scenarios: Scenario[], servers: Record<Scenario['server'], { port: number; pid: number }>, seconds: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const scenario of scenarios) {
    const { port, pid } = servers[scenario.server];
    const url = `http://127.0.0.1:${port}${scenario.path}`;
    await load(url, Math.max(2, Math.round(seconds / 5)), scenario.headers, scenario.post, true);
    const result = await load(url, seconds, scenario.headers, scenario.post);
    const baseline = figures[0]?.requestsPerSecond ?? result.requestsPerSecond;
    figures.push({ name: scenario.name, ...result, ratioToBaseline: result.requestsPerSecond / baseline, serverRssMiB: rssMiB(pid) });
  }
  return figures;
}

/**
 * One table: HTTP figures as throughput, git figures as times. "vs baseline" is always Hearth's speed as a share of
 * the baseline's (req/s over req/s; the baseline's time over Hearth's), so below 1.00× means slower.
 */
function printTable(figures: Figure[], git: GitFigure[]): void {
  const header = ['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'time ms', 'baseline ms', 'vs baseline', 'server RSS MiB'];
  const rows = [
    ...figures.map((f) => [
      f.name, f.requestsPerSecond.toFixed(0), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), '', '', `${f.ratioToBaseline.toFixed(2)}×`, String(f.serverRssMiB),
    ]),
    ...git.map((g) => [
      g.runs > 1 ? `${g.name} (median of ${g.runs})` : g.name, '', '', '', (g.seconds * 1000).toFixed(0), (g.baselineSeconds * 1000).toFixed(0),
      `${(1 / g.timeRatioToBaseline).toFixed(2)}×`, String(g.serverRssMiB),
    ]),
  ];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log([line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
}

function printWebhooks(w: WebhookFigures): void {
  console.log('\n| webhooks | deliveries/s | bare undici poster | vs bare | p50 delay ms | p99 delay ms | API answer p50, p99 ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(`| one event to ${w.fanOutHooks} hooks | ${w.fanOutDeliveriesPerSecond} | ${w.bareDeliveriesPerSecond} | ${w.fanOutRatio.toFixed(2)}× | | | |`);
  console.log(`| ${w.steadyEvents} events at ${w.steadyRatePerSecond}/s to one hook, after ${w.steadyWarmUpEvents} unmeasured (${w.steadyFailedCalls} API calls failed) | ${w.steadyDeliveriesPerSecond} | | | ` +
    `${w.delayP50Ms} | ${w.delayP99Ms} | ${w.answerP50Ms}, ${w.answerP99Ms} |`);
}

function printPackages(figures: PackageFigure[], npm: NpmInstallFigure): void {
  for (const f of figures) {
    console.log(`${f.name}: ${(f.mib / f.seconds).toFixed(0)} MiB/s, disk ${(f.mib / f.baselineSeconds).toFixed(0)} MiB/s, ` +
      `${f.throughputRatio.toFixed(2)}× of disk, web RSS +${f.rssGrowthMiB} MiB during the transfer`);
  }
  console.log(`npm install of a package with ${npm.versions} versions: ${npm.seconds.toFixed(2)} s, from its tarball on disk ${npm.baselineSeconds.toFixed(2)} s ` +
    `(${npm.ratio.toFixed(2)}×); its packument ${npm.packumentKiB} KiB in ${npm.packumentMs.toFixed(0)} ms`);
}

interface ExtraFigures {
  packages?: PackageFigure[];
  npmInstall?: NpmInstallFigure;
  pulls?: GitFigure[];
  start?: StartFigure;
  webhooks?: WebhookFigures;
}

function writeResults(figures: Figure[], git: { history: GitHistory; figures: GitFigure[] } | null, seconds: number, extra: ExtraFigures): string {
  const dir = path.join(root, 'tests', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const started = new Date();
  const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    // Other work on the machine moves every figure; the 1-minute load average at the end tells how much.
    loadAverage: os.loadavg()[0],
  };
  writeFileSync(file, `${JSON.stringify({ date: started.toISOString(), machine, connections, durationSeconds: seconds, figures, git, ...extra }, null, 2)}\n`);
  return file;
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_DURATION ?? 10);
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error('BENCH_DURATION must be a number of seconds, at least 1');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-'));
  chmodSync(scratch, 0o755);
  const children: ChildProcess[] = [];
  let database: Database | undefined;
  let benchUrl: string | undefined;
  try {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || undefined, dataDir: scratch });
    benchUrl = await createBenchDatabase(database.url);
    const services = buildServices(loadConfig({ HEARTH_DATA_DIR: scratch }), pino({ level: 'silent' }));
    const { userId, token } = await seed(benchUrl, services);
    // Loopback sources are allowed: the mirror benchmark migrates from this same Hearth.
    // `ops` serves /metrics too (behind a token), so its scrape is measured beside GET /api/v1/version
    const metricsToken = 'bench-metrics-token';
    const env = {
      ...process.env, NODE_ENV: 'production', DATABASE_URL: benchUrl, HEARTH_DATA_DIR: scratch, HEARTH__migrations__ALLOW_LOCALNETWORKS: 'true',
      ...(process.argv[2] === 'ops' ? { HEARTH__metrics__ENABLED: 'true', HEARTH__metrics__TOKEN: metricsToken } : {}),
    };
    const ports = { baseline: await freePort(), hearth: await freePort() };
    const hearth = await startServer(['api/server.ts'], { ...env, PORT: String(ports.hearth) }, ports.hearth);
    children.push(hearth);
    const packageFigures = async () => ({
      packages: await measurePackages(path.join(scratch, 'package-bench'), {
        base: `http://127.0.0.1:${ports.hearth}/api/packages/${username}/generic`, authorization: `token ${token}`, rss: () => rssMiB(hearth.pid!),
      }, Number(process.env.BENCH_PACKAGE_MIB ?? 100)),
      npmInstall: await measureNpmInstall(path.join(scratch, 'npm-bench'), { registry: `http://127.0.0.1:${ports.hearth}/api/packages/${username}/npm/`, token }),
    });
    const pullFigures = () => measurePulls(path.join(scratch, 'pull-bench'), {
      rootUrl: `http://127.0.0.1:${ports.hearth}/`, username, token, repo: repos.pulls, dir: services.git.pathOf(username, repos.pulls),
      rss: () => rssMiB(hearth.pid!), pid: hearth.pid!,
    });
    const pushUrl = new URL(`${username}/${repos.pushed}.git`, `http://127.0.0.1:${ports.hearth}/`);
    pushUrl.username = username;
    pushUrl.password = token;
    const gitTarget: GitTarget = { url: pushUrl.toString(), dir: services.git.pathOf(username, repos.pushed), rss: () => rssMiB(hearth.pid!) };
    const mirrorFigures = () => measureMirrors(path.join(scratch, 'git-bench'), {
      rootUrl: `http://127.0.0.1:${ports.hearth}/`, username, token, sourceRepo: repos.pushed, sourceDir: gitTarget.dir, databaseUrl: benchUrl!,
      rss: gitTarget.rss,
    });
    // `npm run bench -- ssh` (or `-- git`): the git figures alone, over file://, HTTP and SSH
    if (process.argv[2] === 'ssh' || process.argv[2] === 'git') {
      const sshd = await startSsh(env, scratch, ports.hearth, token);
      children.push(sshd.child);
      const git = await measureGit(path.join(scratch, 'git-bench'), { ...gitTarget, ssh: sshd.ssh });
      printTable([], git.figures);
      printSshAim(git.figures);
      console.log(`written to ${path.relative(root, writeResults([], git, seconds, {}))}; ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      return;
    }
    // `npm run bench -- mirrors`: the 2,000-commit history pushed (untimed), then the migration and sync figures alone
    if (process.argv[2] === 'mirrors') {
      const history = await pushHistory(path.join(scratch, 'git-bench'), gitTarget);
      children.push(await startWorker(env));
      const mirrors = await mirrorFigures();
      printTable([], mirrors);
      console.log(`written to ${path.relative(root, writeResults([], { history, figures: mirrors }, seconds, {}))}; load average ${os.loadavg()[0].toFixed(1)}`);
      return;
    }
    // `npm run bench -- pulls`: the pull request figures alone
    if (process.argv[2] === 'pulls') {
      const pulls = await pullFigures();
      printTable([], pulls);
      console.log(`written to ${path.relative(root, writeResults([], null, seconds, { pulls }))}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      return;
    }
    // `npm run bench -- ops`: the queue monitor with 1,000 kept jobs, then with 1,000,000, beside GET /api/v1/version
    if (process.argv[2] === 'ops') {
      const admin = new pg.Client({ connectionString: benchUrl });
      await admin.connect();
      await admin.query(`UPDATE "user" SET is_admin = true WHERE id = $1`, [userId]);
      await admin.end();
      const servers = { baseline: { port: ports.hearth, pid: hearth.pid! }, hearth: { port: ports.hearth, pid: hearth.pid! } };
      const auth = { Authorization: `token ${token}` };
      await addKeptJobs(benchUrl, 1_000, true);
      await addMetricsFigures(benchUrl, repos.plain);
      const scrapeHeaders = { Authorization: `Bearer ${metricsToken}` };
      checkScrape(await (await fetch(`http://127.0.0.1:${ports.hearth}/metrics`, { headers: scrapeHeaders })).text());
      const figures = await measure([
        { name: 'GET /api/v1/version', server: 'hearth', path: '/api/v1/version' },
        { name: 'GET /api/v1/admin/queues, 1,000 kept jobs', server: 'hearth', path: '/api/v1/admin/queues', headers: auth },
        { name: 'GET /metrics, every figure present', server: 'hearth', path: '/metrics', headers: scrapeHeaders },
      ], servers, seconds);
      await addKeptJobs(benchUrl, 999_000, false);
      const [large, largeScrape] = await measure([
        { name: 'GET /api/v1/admin/queues, 1,000,000 kept jobs', server: 'hearth', path: '/api/v1/admin/queues', headers: auth },
        { name: 'GET /metrics, 1,000,000 kept jobs', server: 'hearth', path: '/metrics', headers: scrapeHeaders },
      ], servers, seconds);
      for (const figure of [large, largeScrape]) figures.push({ ...figure, ratioToBaseline: figure.requestsPerSecond / figures[0].requestsPerSecond });
      printTable(figures, []);
      console.log(`1,000,000 kept jobs answer at ${(large.requestsPerSecond / figures[1].requestsPerSecond).toFixed(2)}× the requests per second of 1,000`);
      console.log(`/metrics answers at ${(figures[2].requestsPerSecond / figures[0].requestsPerSecond).toFixed(2)}× the requests per second of GET /api/v1/version`);
      console.log(`written to ${path.relative(root, writeResults(figures, null, seconds, {}))}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      return;
    }
    if (process.argv[2] === 'packages') {
      const { packages, npmInstall } = await packageFigures();
      printPackages(packages, npmInstall);
      console.log(`written to ${path.relative(root, writeResults([], null, seconds, { packages, npmInstall }))}; load average ${os.loadavg()[0].toFixed(1)}`);
      return;
    }
    const webhookRun = {
      apiUrl: `http://127.0.0.1:${ports.hearth}`, token, owner: username, env,
      events: Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1_000),
      hooks: Number(process.env.BENCH_WEBHOOK_HOOKS ?? 100),
      rate: Number(process.env.BENCH_WEBHOOK_RATE ?? 200),
      warmUp: process.env.BENCH_WEBHOOK_WARMUP ? Number(process.env.BENCH_WEBHOOK_WARMUP) : undefined,
    };
    if (process.env.BENCH_ONLY === 'webhooks') {
      const webhooks = await measureWebhooks(webhookRun);
      printWebhooks(webhooks);
      console.log(`written to ${path.relative(root, writeResults([], null, seconds, { webhooks }))}`);
      return;
    }
    const baseline = await startServer([self, 'baseline-server'], { ...env, PORT: String(ports.baseline) }, ports.baseline);
    children.push(baseline);
    const listed = (await (await fetch(`http://127.0.0.1:${ports.hearth}/api/v1/repos/${username}/${repos.branches}/branches`)).json()) as unknown[];
    if (listed.length !== branchCount) throw new Error(`the branch list shows ${listed.length} branches, not ${branchCount}`);
    const page50 = await fetch(`http://127.0.0.1:${ports.hearth}/api/v1/repos/${username}/${repos.issues}/issues?page=50`);
    const page50Issues = (await page50.json()) as Array<{ labels: unknown[] }>;
    if (page50Issues.length !== 30 || page50Issues[0].labels.length !== 2) throw new Error('page 50 of the open issues is not a full page of labelled issues');
    // BENCH_ONLY=http runs the HTTP figures alone
    const figures = await measure(
      [
        { name: 'baseline: Express 5 + pg, one primary-key query', server: 'baseline', path: `/user/${userId}` },
        { name: 'GET /api/v1/user (Authorization: token)', server: 'hearth', path: '/api/v1/user', headers: { Authorization: `token ${token}` } },
        { name: `GET /api/v1/users/{username} (anonymous)`, server: 'hearth', path: `/api/v1/users/${username}` },
        { name: 'GET /api/v1/repos/{owner}/{repo} (anonymous, public)', server: 'hearth', path: `/api/v1/repos/${username}/${repos.plain}` },
        { name: `GET /api/v1/repos/{owner}/{repo}/branches (${branchCount} branches)`, server: 'hearth', path: `/api/v1/repos/${username}/${repos.branches}/branches` },
        { name: `GET /api/v1/repos/{owner}/{repo}/issues (open, first page; ${issueCount} issues)`, server: 'hearth', path: `/api/v1/repos/${username}/${repos.issues}/issues` },
        { name: `GET /api/v1/repos/{owner}/{repo}/issues?page=50 (open; ${issueCount} issues)`, server: 'hearth', path: `/api/v1/repos/${username}/${repos.issues}/issues?page=50` },
        {
          name: 'POST /api/v1/repos/{owner}/{repo}/issues (create, token)', server: 'hearth', path: `/api/v1/repos/${username}/${repos.inbox}/issues`,
          headers: { Authorization: `token ${token}` }, post: { title: 'An issue under load', body: 'Created by the benchmark' },
        },
      ],
      { baseline: { port: ports.baseline, pid: baseline.pid! }, hearth: { port: ports.hearth, pid: hearth.pid! } },
      seconds,
    );
    if (process.env.BENCH_ONLY === 'http') {
      printTable(figures, []);
      console.log(`written to ${path.relative(root, writeResults(figures, null, seconds, {}))}; load average ${os.loadavg()[0].toFixed(1)}`);
      return;
    }
    const sshd = await startSsh(env, scratch, ports.hearth, token);
    children.push(sshd.child);
    const git = await measureGit(path.join(scratch, 'git-bench'), { ...gitTarget, ssh: sshd.ssh });
    const webhooks = await measureWebhooks(webhookRun);
    // A worker runs the migration and sync jobs (branch syncs of the pushes above run in it too).
    children.push(await startWorker(env));
    await waitForQueuesDrained(benchUrl);
    git.figures.push(...await mirrorFigures());
    const { packages, npmInstall } = await packageFigures();
    const pulls = await pullFigures();
    await Promise.all(children.splice(0).map(stopServer));
    const start = await measureStart(root);
    printTable(figures, [...git.figures, ...pulls]);
    printSshAim(git.figures);
    printPackages(packages, npmInstall);
    printStart(start);
    printWebhooks(webhooks);
    const file = path.relative(root, writeResults(figures, git, seconds, { packages, npmInstall, pulls, start, webhooks }));
    console.log(
      `\n${connections} connections, ${seconds} s per HTTP figure; git: ${git.history.commits} commits touching ${git.history.files} files ` +
      `(${git.history.packMiB} MiB packed), baseline file:// between local repositories; ${os.cpus().length} CPUs, ` +
      `load average ${os.loadavg()[0].toFixed(1)}; written to ${file}`,
    );
  } finally {
    await Promise.all(children.map(stopServer));
    if (database && benchUrl) await dropBenchDatabase(database.url, benchUrl).catch(() => undefined);
    await database?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function printStart(start: StartFigure): void {
  console.log(`\ntime to first healthz 200: npm start ${(start.secondMs / 1000).toFixed(1)} s (nothing rebuilt, existing data); ` +
    `${(start.firstMs / 1000).toFixed(1)} s on an empty data directory (cluster initialised, migrations)`);
}

if (process.argv[2] === 'baseline-server') {
  serveBaseline();
} else if (process.argv[2] === 'start') {
  measureStart(root).then(
    (start) => {
      printStart(start);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
