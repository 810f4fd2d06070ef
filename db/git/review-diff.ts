import type { GitReader } from './read.js';
import { runGit } from './run.js';

/** `git diff -M from to -- path`: one file's diff between two commits (empty when it did not change). */
export async function fileDiff(repo: GitReader, from: string, to: string, path: string): Promise<string> {
  const out = await runGit(['diff', '-M', '--no-color', from, to, '--', path], { cwd: repo.dir, env: { GIT_LITERAL_PATHSPECS: '1' } });
  return out.code === 0 ? out.stdout.toString('utf8') : '';
}
