import type { TestHearth, TestUser } from '../helpers/hearth.js';
import { git, ok } from '../git/git-client.js';
import type { Clone } from './pull-setup.js';

/** `git log` of a ref on the server: "%H|%P|%an <%ae>|%cn|%s", newest first. */
export async function history(hearth: TestHearth, clone: Clone, repo: string, ref: string, count = 5): Promise<string[]> {
  const out = await ok(git(clone.home, ['--git-dir', hearth.deps.git.pathOf('alice', repo), 'log', `-${count}`, '--format=%H|%P|%an <%ae>|%cn|%s', ref]));
  return out.trim().split('\n');
}

export async function openPull(hearth: TestHearth, alice: TestUser, repo: string, head = 'feature', title = 'Add feature'): Promise<number> {
  const created = await hearth.call('POST', `/repos/alice/${repo}/pulls`, { auth: alice.bearer, body: { head, base: 'main', title } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.number;
}

/** main moves on with a commit of its own, so merges are real three-way merges. */
export async function advanceMain(clone: Clone): Promise<string> {
  await clone.checkout('main');
  const sha = await clone.commit('main.txt', 'main\n', 'main moves on');
  await clone.push('main');
  await clone.checkout('feature');
  return sha;
}

