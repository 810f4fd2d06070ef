import type { TestHearth } from '../helpers/hearth.js';
import { basicAuth } from '../helpers/hearth.js';

/** Who calls: an administrator, a user, the same user with a narrow read-only token, and nobody. */
export type CallerName = 'admin' | 'user' | 'narrow' | 'anonymous';

export interface FixtureRepo {
  owner: string;
  name: string;
  id: number;
  private: boolean;
}

export interface Fixtures {
  /** The Authorization header of each caller (none for `anonymous`). */
  auth: Record<CallerName, string | undefined>;
  admin: string;
  user: string;
  other: string;
  org: string;
  teamId: number;
  repos: FixtureRepo[];
  releaseId: number;
  tag: string;
  branch: string;
  sha: string;
  file: string;
  labelId: number;
  keyId: number;
  /** A page of fuzzuser/public's wiki. */
  wikiPage: string;
}

async function expect<T = any>(hearth: TestHearth, method: string, path: string, auth: string, body: unknown, status: number): Promise<T> {
  const answer = await hearth.call(method, path, { auth, body });
  if (answer.status !== status) throw new Error(`fixture ${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as T;
}

const content = (text: string): string => Buffer.from(text).toString('base64');

/**
 * The fixtures, made through the API (only the first administrator comes from a factory, as at a first start):
 * a user and another user, an organization with a team, a public and a private repository of the user and a public
 * one of the organization (each with a commit), a branch, a release with its tag, a label and a deploy key, and the
 * tokens of the callers.
 */
export async function createFixtures(hearth: TestHearth): Promise<Fixtures> {
  const root = await hearth.createUser('fuzzroot', { admin: true });
  const admin = root.bearer;
  const password = 'fuzz-user-password';
  for (const name of ['fuzzuser', 'fuzzother']) {
    await expect(hearth, 'POST', '/admin/users', admin, { username: name, email: `${name}@example.com`, password, must_change_password: false }, 201);
  }
  const basic = basicAuth('fuzzuser', password);
  const token = async (name: string, scopes: string[]): Promise<string> =>
    `token ${(await expect<{ sha1: string }>(hearth, 'POST', '/users/fuzzuser/tokens', basic, { name, scopes }, 201)).sha1}`;
  const user = await token('fuzz-all', ['all']);
  const narrow = await token('fuzz-narrow', ['read:repository']);

  await expect(hearth, 'POST', '/orgs', user, { username: 'fuzzorg', visibility: 'public' }, 201);
  const team = await expect<{ id: number }>(hearth, 'POST', '/orgs/fuzzorg/teams', user,
    { name: 'devs', permission: 'write', units: ['repo.code', 'repo.releases'] }, 201);
  await expect(hearth, 'PUT', `/teams/${team.id}/members/fuzzother`, user, undefined, 204);

  const repos: FixtureRepo[] = [];
  for (const [owner, name, isPrivate, path] of [
    ['fuzzuser', 'public', false, '/user/repos'], ['fuzzuser', 'secret', true, '/user/repos'], ['fuzzorg', 'shared', false, '/orgs/fuzzorg/repos'],
  ] as const) {
    const made = await expect<{ id: number }>(hearth, 'POST', path, user, { name, private: isPrivate, auto_init: true, default_branch: 'main' }, 201);
    await expect(hearth, 'POST', `/repos/${owner}/${name}/contents/docs/guide.md`, user, { content: content('# Guide\n'), message: 'add a guide' }, 201);
    repos.push({ owner, name, id: made.id, private: isPrivate });
  }
  const branch = await expect<{ name: string; commit: { id: string } }>(hearth, 'POST', '/repos/fuzzuser/public/branches', user, { new_branch_name: 'feature' }, 201);
  const release = await expect<{ id: number }>(hearth, 'POST', '/repos/fuzzuser/public/releases', user, { tag_name: 'v1.0', target_commitish: 'main', name: 'One' }, 201);
  const label = await expect<{ id: number }>(hearth, 'POST', '/orgs/fuzzorg/labels', user, { name: 'bug', color: '#ee0701' }, 201);
  const key = await expect<{ id: number }>(hearth, 'POST', '/repos/fuzzuser/public/keys', user, {
    title: 'deploy', read_only: true,
    key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl fuzz@example.com',
  }, 201);
  await expect(hearth, 'POST', '/repos/fuzzuser/public/wiki/new', user, { title: 'Home', content_base64: content('# Home\n') }, 201);
  return {
    auth: { admin, user, narrow, anonymous: undefined }, wikiPage: 'Home',
    admin: 'fuzzroot', user: 'fuzzuser', other: 'fuzzother', org: 'fuzzorg', teamId: team.id, repos,
    releaseId: release.id, tag: 'v1.0', branch: branch.name, sha: branch.commit.id, file: 'docs/guide.md', labelId: label.id, keyId: key.id,
  };
}
