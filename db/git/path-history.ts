import type { GitReader } from './read.js';
import { runGit } from './run.js';

/** Paths are taken literally: a page file named `*.md` is that file, not a glob. */
const literal = { GIT_LITERAL_PATHSPECS: '1' };

/** The commits from `rev` back that touched `path`, newest first, a page of them (no rename following, as Gitea's wiki). */
export async function pathHistory(reader: GitReader, rev: string, path: string, skip: number, max: number): Promise<string[]> {
  const out = await runGit(['rev-list', `--skip=${skip}`, `--max-count=${max}`, rev, '--', path], { cwd: reader.dir, env: literal });
  if (out.code !== 0) throw new Error(`git rev-list failed: ${out.stderr.trim()}`);
  return out.stdout.toString('utf8').split('\n').filter(Boolean);
}

/** How many commits from `rev` back touched `path`. */
export async function pathCommitCount(reader: GitReader, rev: string, path: string): Promise<number> {
  const out = await runGit(['rev-list', '--count', rev, '--', path], { cwd: reader.dir, env: literal });
  if (out.code !== 0) throw new Error(`git rev-list failed: ${out.stderr.trim()}`);
  return Number(out.stdout.toString('utf8').trim());
}
