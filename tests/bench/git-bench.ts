import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * Git transport through Hearth's smart HTTP beside git's own transport between two local repositories
 * (file:// URLs, so git really builds and sends a pack). The history is generated once per run with
 * `git fast-import`: 2,000 commits on main that together touch 5,000 distinct files.
 */
const commitCount = 2000;
const fileCount = 5000;
const repeats = 3;

export interface GitFigure {
  name: string;
  /** What Hearth's transport took, median of `runs` when there are several. */
  seconds: number;
  baselineSeconds: number;
  /** Hearth's time over the baseline's: 2 means twice as long. */
  timeRatioToBaseline: number;
  runs: number;
  serverRssMiB: number;
}

export interface GitTarget {
  /** http://user:token@127.0.0.1:PORT/owner/repo.git of an empty Hearth repository the caller may push to. */
  url: string;
  /** That repository's directory on the server's disk. */
  dir: string;
  /** The Hearth process, whose memory is read after each figure. */
  rss: () => number;
  /** The same repository over Hearth's SSH server: its URL, the ssh command git runs, the ssh process's memory. */
  ssh?: { url: string; command: string; rss: () => number };
}

export interface GitHistory {
  commits: number;
  files: number;
  packMiB: number;
}

/** Git as a user runs it: its own HOME with an identity, no system configuration, never a prompt. Answers stdout. */
function runGit(home: string, args: string[], input?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' },
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`git ${args.join(' ')} exited with ${code}: ${stderr.trim()}`))));
    child.stdin?.end(input);
  });
}

/** Git as the benchmark's user runs it, for the mirror figures. */
export const gitAsUser = runGit;

const headOf = async (home: string, dir: string): Promise<string> => (await runGit(home, ['--git-dir', dir, 'rev-parse', 'refs/heads/main'])).trim();

/** A figure only counts if the transfer really happened: `dir`'s main must now be `expected`. */
async function assertHead(home: string, dir: string, expected: string, what: string): Promise<void> {
  const actual = await headOf(home, dir);
  if (actual !== expected) throw new Error(`${what}: main is ${actual}, expected ${expected}`);
}

export async function timeGit(home: string, args: string[]): Promise<number> {
  const started = performance.now();
  await runGit(home, args);
  return (performance.now() - started) / 1000;
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Text that compresses and deltas like source code: lines of words chosen by a seeded generator. */
function fileText(seed: number, revision: number): string {
  const words = ['const', 'value', 'return', 'function', 'import', 'export', 'await', 'result', 'options', 'config', 'error', 'index', 'length', 'string', 'number'];
  let state = (seed * 2654435761 + 1) >>> 0;
  const next = (): number => (state = (state * 1103515245 + 12345) >>> 0) >>> 16;
  const lines = [`// file ${seed}, revision ${revision}`];
  const count = 12 + (next() % 24);
  for (let i = 0; i < count; i++) {
    const width = 3 + (next() % 8);
    lines.push(`${'  '.repeat(next() % 3)}${Array.from({ length: width }, () => words[next() % words.length]).join(' ')};`);
  }
  if (revision > 0) lines.splice(1 + (revision % (lines.length - 1)), 0, `// changed in revision ${revision}`);
  return `${lines.join('\n')}\n`;
}

const filePath = (n: number): string => `pkg${n % 40}/mod${Math.floor(n / 40) % 12}/file${n}.ts`;

/**
 * The fast-import stream: commit i adds the files from i·5000/2000 up to the next commit's first file, and from
 * the second commit on also changes one file an earlier commit added.
 */
function historyStream(): Buffer {
  const parts: string[] = [];
  const data = (text: string): string => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const revisions = new Map<number, number>();
  for (let i = 0; i < commitCount; i++) {
    const first = Math.floor((i * fileCount) / commitCount);
    const end = Math.floor(((i + 1) * fileCount) / commitCount);
    const when = 1_700_000_000 + i * 600;
    parts.push(`commit refs/heads/main\nmark :${i + 1}\n`);
    parts.push(`author Bench Author <author@example.com> ${when} +0000\ncommitter Bench Author <author@example.com> ${when} +0000\n`);
    parts.push(data(`Change ${i + 1}\n\nAdds files ${first} to ${end - 1}.\n`));
    for (let n = first; n < end; n++) parts.push(`M 100644 inline ${filePath(n)}\n`, data(fileText(n, 0)));
    if (first > 0) {
      const changed = (i * 7919) % first;
      const revision = (revisions.get(changed) ?? 0) + 1;
      revisions.set(changed, revision);
      parts.push(`M 100644 inline ${filePath(changed)}\n`, data(fileText(changed, revision)));
    }
    parts.push('\n');
  }
  return Buffer.from(parts.join(''));
}

async function packMiB(home: string, dir: string): Promise<number> {
  const out = await runGit(home, ['--git-dir', dir, 'count-objects', '-v']);
  const kib = Number(/^size-pack: (\d+)$/m.exec(out)?.[1] ?? Number.NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/** The benchmark's git user (its HOME under `work`) and the generated history in `work/source.git`. */
async function generateHistory(work: string, sshCommand?: string): Promise<{ home: string; source: string; history: GitHistory; tip: string }> {
  const home = path.join(work, 'home');
  mkdirSync(home, { recursive: true });
  const ssh = sshCommand ? `[core]\n\tsshCommand = ${sshCommand}\n` : '';
  writeFileSync(path.join(home, '.gitconfig'), `[user]\n\tname = Bench Author\n\temail = author@example.com\n[init]\n\tdefaultBranch = main\n${ssh}`);
  const source = path.join(work, 'source.git');
  await runGit(home, ['init', '--quiet', '--bare', source]);
  await runGit(home, ['--git-dir', source, 'fast-import', '--quiet'], historyStream());
  return { home, source, history: { commits: commitCount, files: fileCount, packMiB: await packMiB(home, source) }, tip: await headOf(home, source) };
}

/** The history pushed to Hearth, untimed: what the mirror figures start from when the git figures are not run. */
export async function pushHistory(work: string, target: GitTarget): Promise<GitHistory> {
  const { home, source, history, tip } = await generateHistory(work);
  await runGit(home, ['--git-dir', source, 'push', '--quiet', target.url, 'refs/heads/main:refs/heads/main']);
  await assertHead(home, target.dir, tip, 'push to Hearth');
  return history;
}

/**
 * Runs every git figure in `work` (left for the caller to remove): the initial push of the whole history, three
 * bare clones from each side (file://, HTTP and, with `target.ssh`, SSH), and three pushes of one new commit each
 * over HTTP and SSH, each beside the same push to a local repository.
 */
export async function measureGit(work: string, target: GitTarget): Promise<{ history: GitHistory; figures: GitFigure[] }> {
  const { home, source, history, tip } = await generateHistory(work, target.ssh?.command);

  const figures: GitFigure[] = [];
  const record = (name: string, hearth: number[], baseline: number[], rss = target.rss): void => {
    const seconds = median(hearth);
    const baselineSeconds = median(baseline);
    figures.push({ name, seconds, baselineSeconds, timeRatioToBaseline: seconds / baselineSeconds, runs: hearth.length, serverRssMiB: rss() });
  };

  // The baseline repository is also where the baseline's incremental pushes go.
  const local = path.join(work, 'local.git');
  await runGit(home, ['init', '--quiet', '--bare', local]);
  const localInitial = await timeGit(home, ['--git-dir', source, 'push', '--quiet', `file://${local}`, 'refs/heads/main:refs/heads/main']);
  const hearthInitial = await timeGit(home, ['--git-dir', source, 'push', '--quiet', target.url, 'refs/heads/main:refs/heads/main']);
  await assertHead(home, local, tip, 'initial push to the local repository');
  await assertHead(home, target.dir, tip, 'initial push to Hearth');
  record(`git push, initial (${commitCount} commits, ${fileCount} files)`, [hearthInitial], [localInitial]);

  const clones = { hearth: [] as number[], local: [] as number[], ssh: [] as number[] };
  const sides: Array<['local' | 'hearth' | 'ssh', string]> = [['local', `file://${target.dir}`], ['hearth', target.url]];
  if (target.ssh) sides.push(['ssh', target.ssh.url]);
  for (let i = 0; i < repeats; i++) {
    for (const [side, url] of sides) {
      const dest = path.join(work, `clone-${side}-${i}.git`);
      clones[side].push(await timeGit(home, ['clone', '--quiet', '--bare', url, dest]));
      await assertHead(home, dest, tip, `clone from ${side}`);
      rmSync(dest, { recursive: true, force: true });
    }
  }
  record('git clone --bare, whole history', clones.hearth, clones.local);
  if (target.ssh) record('git clone --bare over SSH, whole history', clones.ssh, clones.local, target.ssh.rss);

  const checkout = path.join(work, 'checkout');
  await runGit(home, ['clone', '--quiet', `file://${source}`, checkout]);
  const pushes = { hearth: [] as number[], local: [] as number[], ssh: [] as number[], sshLocal: [] as number[] };
  const pushOne = async (n: number, url: string, times: number[], localTimes: number[], what: string): Promise<void> => {
    writeFileSync(path.join(checkout, filePath(n)), fileText(n, 1000 + n));
    await runGit(home, ['-C', checkout, 'commit', '--quiet', '-am', `Incremental change ${n + 1}`]);
    times.push(await timeGit(home, ['-C', checkout, 'push', '--quiet', url, 'HEAD:refs/heads/main']));
    localTimes.push(await timeGit(home, ['-C', checkout, 'push', '--quiet', `file://${local}`, 'HEAD:refs/heads/main']));
    const pushed = await headOf(home, path.join(checkout, '.git'));
    await assertHead(home, target.dir, pushed, `incremental push to Hearth ${what}`);
    await assertHead(home, local, pushed, 'incremental push to the local repository');
  };
  for (let i = 0; i < repeats; i++) {
    await pushOne(2 * i, target.url, pushes.hearth, pushes.local, 'over HTTP');
    if (target.ssh) await pushOne(2 * i + 1, target.ssh.url, pushes.ssh, pushes.sshLocal, 'over SSH');
  }
  record('git push, one new commit', pushes.hearth, pushes.local);
  if (target.ssh) record('git push over SSH, one new commit', pushes.ssh, pushes.sshLocal, target.ssh.rss);
  return { history, figures };
}
