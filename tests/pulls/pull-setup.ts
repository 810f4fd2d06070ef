import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import type { TestHearth, TestUser } from '../helpers/hearth.js';
import { commitFile, git, ok, remote, scratch } from '../git/git-client.js';

/** A local clone of a Hearth repository that pushes with the owner's token. */
export interface Clone {
  home: string;
  dir: string;
  url: string;
  run(args: string[]): Promise<string>;
  /** Commits one file on the checked-out branch; answers the commit id. */
  commit(file: string, content: string, message?: string): Promise<string>;
  checkout(branch: string, create?: boolean): Promise<void>;
  push(...refspecs: string[]): Promise<void>;
  rev(name: string): Promise<string>;
}

/** Clones `owner/repo` (made with a README on `main` when `create`) into a scratch directory. */
export async function cloneOf(t: ExecutionContext, hearth: TestHearth, user: TestUser, owner: string, repo: string): Promise<Clone> {
  const home = scratch(t);
  const url = remote(hearth, owner, repo, { user: user.user.name, secret: user.token });
  await ok(git(home, ['clone', '--quiet', url, 'work']));
  const dir = path.join(home, 'work');
  const run = (args: string[]): Promise<string> => ok(git(home, args, dir));
  return {
    home, dir, url, run,
    commit: (file, content, message) => commitFile(home, dir, file, content, message),
    checkout: async (branch, create = false) => {
      await run(['checkout', '--quiet', ...(create ? ['-b'] : []), branch]);
    },
    push: async (...refspecs) => {
      await run(['push', '--quiet', url, ...refspecs]);
      await drain(hearth, 'branch-sync');
    },
    rev: async (name) => (await run(['rev-parse', name])).trim(),
  };
}

/** alice's repository `name` with a README on main, cloned, and a branch `feature` with one commit pushed. */
export async function repoWithFeature(t: ExecutionContext, hearth: TestHearth, alice: TestUser, name: string): Promise<Clone> {
  await build.repo(hearth, alice.user, { name, autoInit: true });
  const clone = await cloneOf(t, hearth, alice, alice.user.name, name);
  await clone.checkout('feature', true);
  await clone.commit('feature.txt', 'feature\n', 'add feature');
  await clone.push('feature');
  return clone;
}
