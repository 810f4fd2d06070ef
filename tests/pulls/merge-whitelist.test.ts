import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

/**
 * Gitea's IsUserAllowedToMerge: under a rule with `enable_merge_whitelist`, only the whitelist's users and the members
 * of its teams merge, whatever else they may write. The branch's `user_can_merge` says what the merge then does.
 */

interface Cast {
  hearth: TestHearth;
  owner: TestUser;
  listed: TestUser;
  teamed: TestUser;
  writer: TestUser;
}

/** acme/proj with pulls #1..#n (branches f1..fn), a writer team `mergers`, and three writers: one listed, one in the team, one neither. */
async function setUp(t: Parameters<typeof startHearth>[0], pulls: number): Promise<Cast> {
  const hearth = await startHearth(t);
  const owner = await hearth.createUser('owner');
  const listed = await hearth.createUser('listed');
  const teamed = await hearth.createUser('teamed');
  const writer = await hearth.createUser('writer');
  const org = await build.org(hearth, owner, { name: 'acme' });
  const repo = await build.repo(hearth, org, { name: 'proj', autoInit: true });
  await build.team(hearth, org, { name: 'mergers', permission: 'write', units: ['repo.code', 'repo.pulls'], members: [teamed], repos: [repo] });
  await build.team(hearth, org, { name: 'writers', permission: 'write', units: ['repo.code', 'repo.pulls'], members: [listed, writer], repos: [repo] });
  for (let i = 1; i <= pulls; i++) {
    await build.commit(hearth, repo, { files: { [`f${i}.txt`]: `${i}\n` }, newBranch: `f${i}`, message: `add f${i}` });
  }
  await drain(hearth, 'branch-sync');
  for (let i = 1; i <= pulls; i++) {
    const pull = await hearth.call('POST', '/repos/acme/proj/pulls', { auth: owner.bearer, body: { head: `f${i}`, base: 'main', title: `Pull ${i}` } });
    if (pull.status !== 201) throw new Error(JSON.stringify(pull.body));
  }
  return { hearth, owner, listed, teamed, writer };
}

async function protectWithMergeWhitelist({ hearth, owner }: Cast, extra: Record<string, unknown> = {}): Promise<void> {
  const rule = await hearth.call('POST', '/repos/acme/proj/branch_protections', {
    auth: owner.bearer,
    body: { rule_name: 'main', enable_push: true, enable_merge_whitelist: true, merge_whitelist_usernames: ['listed'], merge_whitelist_teams: ['mergers'], ...extra },
  });
  if (rule.status !== 201) throw new Error(JSON.stringify(rule.body));
}

const userCanMerge = async (hearth: TestHearth, who: TestUser): Promise<boolean> =>
  (await hearth.call('GET', '/repos/acme/proj/branches/main', { auth: who.bearer })).body.user_can_merge;

const isMerged = async (hearth: TestHearth, index: number): Promise<boolean> =>
  (await hearth.call('GET', `/repos/acme/proj/pulls/${index}/merge`)).status === 204;

test('the merge whitelist: a listed user and a listed team merge, a writer off the list is refused as the branch says', async (t) => {
  const cast = await setUp(t, 3);
  const { hearth, listed, teamed, writer } = cast;
  t.true(await userCanMerge(hearth, writer), 'without the whitelist every writer merges');
  await protectWithMergeWhitelist(cast);

  t.false(await userCanMerge(hearth, writer));
  const refused = await hearth.call('POST', '/repos/acme/proj/pulls/1/merge', { auth: writer.bearer, body: { Do: 'merge' } });
  t.is(refused.status, 405, JSON.stringify(refused.body));
  t.is(refused.body.message, 'User not allowed to merge PR');
  t.false(await isMerged(hearth, 1));
  const [row] = await hearth.store.db.query<{ has_merged: boolean }>('SELECT has_merged FROM pull_request WHERE index = 1');
  t.false(row.has_merged);

  t.true(await userCanMerge(hearth, listed));
  const byListed = await hearth.call('POST', '/repos/acme/proj/pulls/1/merge', { auth: listed.bearer, body: { Do: 'merge' } });
  t.is(byListed.status, 200, JSON.stringify(byListed.body));
  t.true(await isMerged(hearth, 1));

  t.true(await userCanMerge(hearth, teamed));
  const byTeam = await hearth.call('POST', '/repos/acme/proj/pulls/2/merge', { auth: teamed.bearer, body: { Do: 'merge' } });
  t.is(byTeam.status, 200, JSON.stringify(byTeam.body));
  const pulls = await hearth.store.db.query<{ index: number; merger_id: number | null }>('SELECT index, merger_id FROM pull_request ORDER BY index');
  t.deepEqual(pulls.map((p) => [p.index, Number(p.merger_id) || null]), [[1, listed.user.id], [2, teamed.user.id], [3, null]]);

  // scheduling is refused to the writer off the list as well, and nothing is scheduled
  const schedule = await hearth.call('POST', '/repos/acme/proj/pulls/3/merge', { auth: writer.bearer, body: { Do: 'merge', merge_when_checks_succeed: true } });
  t.is(schedule.status, 405);
  t.deepEqual(await hearth.store.db.query('SELECT id FROM pull_auto_merge'), []);
});

test('a scheduled merge is made as its scheduler: off the merge whitelist by then, it is not made; on it, it is', async (t) => {
  const cast = await setUp(t, 2);
  const { hearth, owner, teamed, writer } = cast;
  await protectWithMergeWhitelist(cast, { enable_merge_whitelist: false, enable_status_check: true, status_check_contexts: ['ci'] });
  // both schedule while every writer may merge; the checks have not run yet
  for (const [who, index] of [[writer, 1], [teamed, 2]] as const) {
    const scheduled = await hearth.call('POST', `/repos/acme/proj/pulls/${index}/merge`, { auth: who.bearer, body: { Do: 'merge', merge_when_checks_succeed: true } });
    t.is(scheduled.status, 201, JSON.stringify(scheduled.body));
  }
  await drain(hearth);
  t.is((await hearth.call('PATCH', '/repos/acme/proj/branch_protections/main', { auth: owner.bearer, body: { enable_merge_whitelist: true } })).status, 200);
  t.false(await userCanMerge(hearth, writer));
  t.true(await userCanMerge(hearth, teamed));

  for (const index of [1, 2]) {
    const head = (await hearth.call('GET', `/repos/acme/proj/pulls/${index}`)).body.head.sha;
    t.is((await hearth.call('POST', `/repos/acme/proj/statuses/${head}`, { auth: owner.bearer, body: { state: 'success', context: 'ci' } })).status, 201);
  }
  const ran = await drain(hearth);
  t.true(ran.some((job) => job.name === 'pull-auto-merge'), JSON.stringify(ran));
  t.false(await isMerged(hearth, 1), 'the writer off the list scheduled it: not merged');
  t.true(await isMerged(hearth, 2), "the team's member scheduled it: merged");
  const merger = await hearth.store.db.query<{ index: number; merger_id: number | null }>('SELECT index, merger_id FROM pull_request ORDER BY index');
  t.deepEqual(merger.map((p) => Number(p.merger_id) || null), [null, teamed.user.id]);
  // the refused schedule stays, as in Gitea, waiting for a check the scheduler might pass later
  const left = await hearth.store.db.query<{ doer_id: number }>('SELECT doer_id FROM pull_auto_merge');
  t.deepEqual(left.map((row) => Number(row.doer_id)), [writer.user.id]);
});
