import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitAsUser, median, timeGit, type GitFigure } from './git-bench.js';

/**
 * A pull request touching 1,000 files (10 commits of 100 new files each) against a base that moved on by one commit
 * of its own: `GET …/pulls/{index}/files` (every file, in pages of 50) and `…/commits` through Hearth beside
 * `git diff --numstat` / `git log --numstat` on the same repository, then `POST …/merge` beside
 * `git merge-tree --write-tree` + `commit-tree` on it. The branches are written straight into the served
 * repository with `git fast-import`, so no push is timed.
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
}

const fileCount = 1_000;
const perCommit = 100;
const repeats = 5;

/** Ten commits on `wide` from main's tip adding 100 files each, and one more commit on main. */
function branchStream(tip: string): Buffer {
  const parts: string[] = [];
  const when = 1_700_000_000;
  for (let c = 0; c < fileCount / perCommit; c++) {
    const message = `add files ${c * perCommit}–${(c + 1) * perCommit - 1}`;
    parts.push(`commit refs/heads/wide\ncommitter Bench <bench@example.com> ${when + c} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`);
    if (c === 0) parts.push(`from ${tip}\n`);
    for (let f = c * perCommit; f < (c + 1) * perCommit; f++) {
      const text = `file ${f}\n${'line\n'.repeat(1 + (f % 20))}`;
      parts.push(`M 100644 inline dir${f % 10}/file${f}.txt\ndata ${Buffer.byteLength(text)}\n${text}\n`);
    }
  }
  const text = 'the base moved on\n';
  parts.push(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${when + 100} +0000\ndata 14\nbase moves on\nfrom ${tip}\nM 100644 inline BASE.txt\ndata ${text.length}\n${text}\n`);
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

export async function measurePulls(work: string, target: PullTarget): Promise<GitFigure[]> {
  const home = path.join(work, 'pull-home');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Bench Author\n\temail = author@example.com\n');
  const git = (args: string[], input?: Buffer): Promise<string> => gitAsUser(home, ['--git-dir', target.dir, ...args], input);
  const tip = (await git(['rev-parse', 'refs/heads/main'])).trim();
  await git(['fast-import', '--quiet'], branchStream(tip));
  const mergeBase = (await git(['merge-base', 'main', 'wide'])).trim();

  const created = (await api(target, 'POST', `/repos/${target.username}/${target.repo}/pulls`, { head: 'wide', base: 'main', title: 'A thousand files' })).json as { number: number };
  const base = `/repos/${target.username}/${target.repo}/pulls/${created.number}`;
  const figures: GitFigure[] = [];
  const record = (name: string, hearth: number[], baseline: number[]): void => {
    const seconds = median(hearth);
    const baselineSeconds = median(baseline);
    figures.push({ name, seconds, baselineSeconds, timeRatioToBaseline: seconds / baselineSeconds, runs: hearth.length, serverRssMiB: target.rss() });
  };

  // every file, page by page, as a client reads them all
  const allFiles = async (): Promise<void> => {
    let seen = 0;
    for (let page = 1; ; page++) {
      const { json } = await api(target, 'GET', `${base}/files?limit=50&page=${page}`);
      seen += (json as unknown[]).length;
      if ((json as unknown[]).length < 50) break;
    }
    if (seen !== fileCount) throw new Error(`the pull request lists ${seen} files, not ${fileCount}`);
  };
  const diff: number[] = [];
  for (let i = 0; i < repeats; i++) diff.push(await timeGit(home, ['--git-dir', target.dir, 'diff', '--numstat', '-M', mergeBase, 'refs/heads/wide']));
  // the first page reads the diff; later pages (and clients) find it kept for the same two commits
  const firstPage = await timed(() => api(target, 'GET', `${base}/files?limit=50&page=1`));
  record(`pull request files, first page of 50 of ${fileCount} (diff read; vs git diff --numstat)`, [firstPage], diff);
  const files: number[] = [];
  diff.length = 0;
  for (let i = 0; i < repeats; i++) {
    files.push(await timed(allFiles));
    diff.push(await timeGit(home, ['--git-dir', target.dir, 'diff', '--numstat', '-M', mergeBase, 'refs/heads/wide']));
  }
  record(`pull request files, all ${fileCount} in 20 pages of 50 (vs one git diff --numstat)`, files, diff);

  const commits: number[] = [];
  const log: number[] = [];
  for (let i = 0; i < repeats; i++) {
    commits.push(await timed(() => api(target, 'GET', `${base}/commits?limit=50`)));
    log.push(await timeGit(home, ['--git-dir', target.dir, 'log', '--numstat', '--format=%H%n%an%n%ae%n%s', `${mergeBase}..refs/heads/wide`]));
  }
  record(`pull request commits, ${fileCount / perCommit} commits with stats and files (vs git log --numstat)`, commits, log);

  const plain: number[] = [];
  for (let i = 0; i < 3; i++) {
    plain.push(await timed(async () => {
      const tree = (await git(['merge-tree', '--write-tree', 'refs/heads/main', 'refs/heads/wide'])).trim();
      await git(['commit-tree', tree, '-p', 'refs/heads/main', '-p', 'refs/heads/wide', '-m', 'baseline merge']);
    }));
  }
  const merge = await timed(() => api(target, 'POST', `${base}/merge`, { Do: 'merge' }));
  const merged = (await git(['rev-parse', 'refs/heads/main^2'])).trim();
  if (merged !== (await git(['rev-parse', 'refs/heads/wide'])).trim()) throw new Error('main is not the merge of wide');
  record('pull request merge, merge style (vs git merge-tree --write-tree + commit-tree)', [merge], plain);
  return figures;
}
