import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import type { TestHearth, TestUser } from '../helpers/hearth.js';

/**
 * alice's repository `name` (README on main) with a branch `feature` adding `feature.txt` (three lines), bob a
 * collaborator with `bobMode`, and alice's pull request #1 from feature into main. Answers the head commit.
 */
export async function pullFixture(hearth: TestHearth, alice: TestUser, bob: TestUser, name: string, bobMode: 'read' | 'write' = 'write') {
  const repo = await build.repo(hearth, alice.user, { name, autoInit: true });
  const head = await build.commit(hearth, repo, { files: { 'feature.txt': 'one\ntwo\nthree\n' }, newBranch: 'feature', message: 'add feature' });
  await drain(hearth, 'branch-sync');
  const collaborator = await hearth.call('PUT', `/repos/alice/${name}/collaborators/bob`, { auth: alice.bearer, body: { permission: bobMode } });
  if (collaborator.status !== 204) throw new Error(`collaborator: ${collaborator.status} ${JSON.stringify(collaborator.body)}`);
  const pull = await hearth.call('POST', `/repos/alice/${name}/pulls`, { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Add feature' } });
  if (pull.status !== 201) throw new Error(`pull: ${pull.status} ${JSON.stringify(pull.body)}`);
  return { repo, pull: pull.body, headSha: head.commitId };
}
