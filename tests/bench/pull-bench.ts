import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitAsUser, median, timeGit, type GitFigure } from './git-bench.js';

/**
 * Pull requests touching 1,000 files (10 commits of 100 new files each, then an empty one), each against a base
 * branch that moved on by one commit of its own, measured beside plain git on the same repository in the same run:
 * - `GET …/pulls/{index}/files`, first page, read cold (Hearth runs the diff), beside `git diff --numstat -M`;
 * - every file in 20 pages of 50 as a client reads them (the diff kept after the first page), beside the same;
 * - `GET …/commits` (stats and files of the 10 commits) beside `git log --numstat`;
 * - `POST …/merge` beside the same plumbing by hand: `git merge-tree --write-tree`, `commit-tree`, `update-ref`.
 * Each figure is the median of `repeats` runs, Hearth and git alternating, each Hearth run on a pull request of its own
 * (so nothing is served from what an earlier run read or wrote); a first pull request warms both sides up unrecorded.
 * The branches are written straight into the served repository with `git fast-import`, so no push is timed.
 */
export interface PullTarget {
  /** http://127.0.0.1:PORT/ of the web process. */
  rootUrl: string;
  username: string;
  token: string;
  /** A repository with a README on main, and its directory on the server's disk. */
  repo: string;
  dir: string;
  rss: () => number;
  /** The web process, whose CPU time (and that of its git processes and of the database) each figure reports. */
  pid: number;
}

/** CPU milliseconds used so far: by the web process, by what it started (git, its git helper), by PostgreSQL. */
interface CpuSample {
  web: number;
  git: number;
  postgres: number;
}

/** Linux's clock ticks per second (USER_HZ), in which /proc reports CPU time. */
const ticksPerSecond = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** CPU time of its threads so far (schedstat, nanoseconds), and of the children it waited for (cutime + cstime). */
  ownMs: number;
  reapedMs: number;
}

/** Time on CPU of all threads of a process, from /proc/PID/task/TID/schedstat (nanoseconds, not 10 ms ticks). */
function threadsMs(pid: string): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

function readProcesses(): ProcStat[] {
  const found: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const reaped = ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
      found.push({ pid: Number(name), ppid: Number(fields[1]), ownMs: threadsMs(name), reapedMs: reaped });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The PostgreSQL server whose data directory is under `scratch` (the bench's embedded cluster), or none. */
function findPostmaster(scratch: string): number | null {
  for (const { pid } of readProcesses()) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (command.split('\0')[0].endsWith('postgres') && command.includes(`${scratch}/db`)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** A process and its descendants' CPU: their own, and that of the children they waited for. */
function treeMs(all: ProcStat[], root: number): number {
  let ms = 0;
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    for (const p of all) {
      if (p.pid === pid) ms += p.ownMs + p.reapedMs;
      if (p.ppid === pid) queue.push(p.pid);
    }
  }
  return ms;
}

function sampleCpu(webPid: number, postmaster: number | null): CpuSample {
  const all = readProcesses();
  const web = all.find((p) => p.pid === webPid)!;
  return { web: web.ownMs, git: treeMs(all, webPid) - web.ownMs, postgres: postmaster ? treeMs(all, postmaster) : Number.NaN };
}

const fileCount = 1_000;
const perCommit = 100;
const pageSize = 50;
const repeats = 9;
/** The ten commits adding files and the empty one that moves the head after creation. */
const commitCount = fileCount / perCommit + 1;

/**
 * For each pair n: `wide-n`, ten commits from main's tip adding 100 files each, and `base-n`, one commit of its own on
 * main's tip. The pairs hold the same files (git stores them once) but are different commits.
 */
function branchStream(tip: string, pairs: number): Buffer {
  const parts: string[] = [];
  const when = 1_700_000_000;
  for (let n = 0; n < pairs; n++) {
    for (let c = 0; c < fileCount / perCommit; c++) {
      const message = `add files ${c * perCommit}–${(c + 1) * perCommit - 1} (${n})`;
      parts.push(`commit refs/heads/wide-${n}\ncommitter Bench <bench@example.com> ${when + n * 100 + c} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`);
      if (c === 0) parts.push(`from ${tip}\n`);
      for (let f = c * perCommit; f < (c + 1) * perCommit; f++) {
        const text = `file ${f}\n${'line\n'.repeat(1 + (f % 20))}`;
        parts.push(`M 100644 inline dir${f % 10}/file${f}.txt\ndata ${Buffer.byteLength(text)}\n${text}\n`);
      }
    }
    const message = `base moves on (${n})`;
    const text = `the base moved on (${n})\n`;
    parts.push(`commit refs/heads/base-${n}\ncommitter Bench <bench@example.com> ${when + n * 100 + 99} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n` +
      `from ${tip}\nM 100644 inline BASE.txt\ndata ${text.length}\n${text}\n`);
  }
  return Buffer.from(parts.join(''));
}

async function api(target: PullTarget, method: string, apiPath: string, body?: unknown): Promise<{ json: unknown; headers: Headers }> {
  const response = await fetch(new URL(`api/v1${apiPath}`, target.rootUrl), {
    method,
    headers: { Authorization: `token ${target.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${apiPath}: ${response.status} ${text}`);
  return { json: text ? JSON.parse(text) : null, headers: response.headers };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** CPU used by the server side during one figure's Hearth runs, summed over them. */
class CpuMeter {
  readonly used = new Map<string, CpuSample & { requests: number }>();

  constructor(
    private readonly webPid: number,
    private readonly postmaster: number | null,
  ) {}

  async timed(figure: string, requests: number, work: () => Promise<unknown>): Promise<number> {
    const before = sampleCpu(this.webPid, this.postmaster);
    const seconds = await timed(work);
    const after = sampleCpu(this.webPid, this.postmaster);
    const sum = this.used.get(figure) ?? { web: 0, git: 0, postgres: 0, requests: 0 };
    this.used.set(figure, {
      web: sum.web + after.web - before.web, git: sum.git + after.git - before.git, postgres: sum.postgres + after.postgres - before.postgres,
      requests: sum.requests + requests,
    });
    return seconds;
  }

  print(): void {
    console.log('\nCPU per request (ms, averaged over all runs; schedstat of live threads, and 10 ms ticks for the git processes reaped): web process, git and its helper, PostgreSQL');
    for (const [figure, { web, git, postgres, requests }] of this.used) {
      console.log(`  ${figure}: web ${(web / requests).toFixed(2)}, git ${(git / requests).toFixed(2)}, postgres ${(postgres / requests).toFixed(2)} (${requests} requests)`);
    }
  }
}

export async function measurePulls(work: string, target: PullTarget): Promise<GitFigure[]> {
  const home = path.join(work, 'pull-home');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Bench Author\n\temail = author@example.com\n');
  const git = (args: string[], input?: Buffer): Promise<string> => gitAsUser(home, ['--git-dir', target.dir, ...args], input);
  const timeGitHere = (args: string[]): Promise<number> => timeGit(home, ['--git-dir', target.dir, ...args]);
  const tip = (await git(['rev-parse', 'refs/heads/main'])).trim();
  const cpu = new CpuMeter(target.pid, findPostmaster(path.resolve(target.dir, '..', '..', '..')));
  const pairs = repeats + 1;
  await git(['fast-import', '--quiet'], branchStream(tip, pairs));

  const pulls: string[] = [];
  for (let n = 0; n < pairs; n++) {
    const created = await api(target, 'POST', `/repos/${target.username}/${target.repo}/pulls`, { head: `wide-${n}`, base: `base-${n}`, title: `A thousand files (${n})` });
    const number = (created.json as { number: number }).number;
    pulls.push(`/repos/${target.username}/${target.repo}/pulls/${number}`);
    // Showing the new pull request read its diff; a push (an empty commit, so the same 1,000 files) moves its head to
    // a diff nobody has read, as a push's branch sync would (the pull request's row keeps the old head meanwhile).
    const moved = (await git(['commit-tree', `refs/heads/wide-${n}^{tree}`, '-p', `refs/heads/wide-${n}`, '-m', 'one more commit'])).trim();
    await git(['update-ref', `refs/heads/wide-${n}`, moved]);
    await git(['update-ref', `refs/pull/${number}/head`, moved]);
  }
  const figures: GitFigure[] = [];
  const record = (name: string, hearth: number[], baseline: number[]): void => {
    const seconds = median(hearth);
    const baselineSeconds = median(baseline);
    figures.push({ name, seconds, baselineSeconds, timeRatioToBaseline: seconds / baselineSeconds, runs: hearth.length, serverRssMiB: target.rss() });
  };
  const numstat = (n: number): string[] => ['diff', '--numstat', '-M', tip, `refs/heads/wide-${n}`];
  const log = (n: number): string[] => ['log', '--numstat', '--format=%H%n%an%n%ae%n%s', `${tip}..refs/heads/wide-${n}`];
  const firstPage = async (pull: string): Promise<void> => {
    const { json, headers } = await api(target, 'GET', `${pull}/files?limit=${pageSize}&page=1`);
    if ((json as unknown[]).length !== pageSize || headers.get('x-total-count') !== String(fileCount)) throw new Error(`${pull}: not a first page of ${fileCount} files`);
  };
  // every file, page by page, as a client reads them all
  const allFiles = async (pull: string): Promise<void> => {
    let seen = 0;
    for (let page = 1; ; page++) {
      const { json } = await api(target, 'GET', `${pull}/files?limit=${pageSize}&page=${page}`);
      seen += (json as unknown[]).length;
      if ((json as unknown[]).length < pageSize) break;
    }
    if (seen !== fileCount) throw new Error(`${pull} lists ${seen} files, not ${fileCount}`);
  };
  const commits = async (pull: string): Promise<void> => {
    const { json } = await api(target, 'GET', `${pull}/commits?limit=${pageSize}`);
    const listed = json as Array<{ files: unknown[] }>;
    const files = listed.reduce((sum, commit) => sum + commit.files.length, 0);
    if (listed.length !== commitCount || files !== fileCount) throw new Error(`${pull}: ${listed.length} commits with ${files} files, not ${commitCount} with ${fileCount}`);
  };
  const plainMerge = async (n: number): Promise<void> => {
    const tree = (await git(['merge-tree', '--write-tree', `refs/heads/base-${n}`, `refs/heads/wide-${n}`])).trim();
    const commit = (await git(['commit-tree', tree, '-p', `refs/heads/base-${n}`, '-p', `refs/heads/wide-${n}`, '-m', 'baseline merge'])).trim();
    await git(['update-ref', `refs/bench/merge-${n}`, commit, '0'.repeat(40)]);
  };

  // warm-up, not recorded: the server's first answers of each route, git's first reads of the new objects
  await timeGitHere(numstat(0));
  await allFiles(pulls[0]);
  await timeGitHere(log(0));
  await commits(pulls[0]);

  const runs = { diff: [] as number[], first: [] as number[], all: [] as number[], log: [] as number[], commits: [] as number[] };
  for (let n = 1; n < pairs; n++) {
    runs.diff.push(await timeGitHere(numstat(n)));
    runs.first.push(await cpu.timed('files, first page', 1, () => firstPage(pulls[n])));
    runs.all.push(await cpu.timed('files, all pages', fileCount / pageSize + 1, () => allFiles(pulls[n])));
    runs.log.push(await timeGitHere(log(n)));
    runs.commits.push(await cpu.timed('commits', 1, () => commits(pulls[n])));
  }
  record(`pull request files, first page of ${pageSize} of ${fileCount} (diff read; vs git diff --numstat -M)`, runs.first, runs.diff);
  record(`pull request files, all ${fileCount} in ${fileCount / pageSize} pages of ${pageSize} (vs one git diff --numstat -M)`, runs.all, runs.diff);
  record(`pull request commits, ${commitCount} commits with stats and files (vs git log --numstat)`, runs.commits, runs.log);

  const merges = { plain: [] as number[], hearth: [] as number[] };
  await plainMerge(0);
  await api(target, 'POST', `${pulls[0]}/merge`, { Do: 'merge' });
  for (let n = 1; n < pairs; n++) {
    merges.plain.push(await timed(() => plainMerge(n)));
    merges.hearth.push(await cpu.timed('merge', 1, () => api(target, 'POST', `${pulls[n]}/merge`, { Do: 'merge' })));
    const [merged, head] = await Promise.all([git(['rev-parse', `refs/heads/base-${n}^2`]), git(['rev-parse', `refs/heads/wide-${n}`])]);
    if (merged.trim() !== head.trim()) throw new Error(`base-${n} is not the merge of wide-${n}`);
  }
  record('pull request merge, merge style (vs git merge-tree --write-tree + commit-tree + update-ref)', merges.hearth, merges.plain);
  cpu.print();
  return figures;
}
