import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = {}) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool' });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/carol', { auth: alice.bearer, body: { permission: 'write' } });
  const issue = await build.issue(hearth, repo, { title: 'react to me' });
  return { hearth, alice, bob, carol, repo, issue };
}

const reactionRows = (hearth: TestHearth, issueId: number) =>
  hearth.store.db.query<{ type: string; user_id: number; comment_id: number | null }>(
    'SELECT type, user_id, comment_id FROM reaction WHERE issue_id = $1 ORDER BY id', [issueId]);

const reactionEvents = (hearth: TestHearth, repoId: number) =>
  hearth.store.db.query<{ kind: string; payload: Record<string, unknown> }>(
    `SELECT kind, payload FROM domain_event WHERE repo_id = $1 AND kind LIKE 'issue.reaction%' ORDER BY id`, [repoId]);

test('a new reaction is 201, the same again 200 and unchanged; each user is listed separately; anyone may read', async (t) => {
  const { hearth, alice, carol, repo, issue } = await setUp(t);
  const path = '/repos/alice/tool/issues/1/reactions';
  const first = await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'rocket' } });
  t.is(first.status, 201, JSON.stringify(first.body));
  t.is(first.body.content, 'rocket');
  t.is(first.body.user.login, 'alice');
  t.regex(first.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const again = await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'rocket' } });
  t.is(again.status, 200);
  t.deepEqual(again.body, first.body);
  t.is((await hearth.call('POST', path, { auth: carol.bearer, body: { content: 'rocket' } })).status, 201);
  t.is((await hearth.call('POST', path, { auth: carol.bearer, body: { content: '+1' } })).status, 201);
  t.deepEqual(await reactionRows(hearth, issue.id), [
    { type: 'rocket', user_id: alice.user.id, comment_id: null },
    { type: 'rocket', user_id: carol.user.id, comment_id: null },
    { type: '+1', user_id: carol.user.id, comment_id: null },
  ]);

  const listed = await hearth.call('GET', path);
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '3');
  t.deepEqual(listed.body.map((r: { user: { login: string }; content: string }) => [r.user.login, r.content]),
    [['alice', 'rocket'], ['carol', 'rocket'], ['carol', '+1']]);
  t.deepEqual((await reactionEvents(hearth, repo.id)).map((e) => e.kind), ['issue.reaction_added', 'issue.reaction_added', 'issue.reaction_added']);
  t.like((await reactionEvents(hearth, repo.id))[0].payload, { issue_id: issue.id, index: 1, is_pull: false, comment_id: null, content: 'rocket' });
});

test('kinds outside [ui] REACTIONS are refused with 403; a configured list replaces the default one', async (t) => {
  const { hearth, alice, issue } = await setUp(t, { HEARTH__ui__REACTIONS: 'thumbsup, party' });
  const path = '/repos/alice/tool/issues/1/reactions';
  const refused = await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'rocket' } });
  t.is(refused.status, 403);
  t.regex(refused.body.message, /not an allowed reaction/);
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'party' } })).status, 201);
  t.deepEqual((await reactionRows(hearth, issue.id)).map((r) => r.type), ['party']);
  t.is((await hearth.call('GET', '/settings/ui')).body.allowed_reactions.join(','), 'thumbsup,party');
});

test('writing needs write access to issues (site administrators included); deleting a missing reaction is 200', async (t) => {
  const { hearth, alice, bob, carol, repo, issue } = await setUp(t);
  const root = await hearth.createUser('root', { admin: true });
  const path = '/repos/alice/tool/issues/1/reactions';
  const reader = await hearth.call('POST', path, { auth: bob.bearer, body: { content: 'heart' } });
  t.is(reader.status, 403);
  t.is((await hearth.call('POST', path, { body: { content: 'heart' } })).status, 401);
  t.is((await hearth.call('POST', path, { auth: root.bearer, body: { content: 'heart' } })).status, 201);
  t.is((await hearth.call('DELETE', path, { auth: bob.bearer, body: { content: 'heart' } })).status, 403);
  t.deepEqual((await reactionRows(hearth, issue.id)).map((r) => r.user_id), [root.user.id]);

  t.is((await hearth.call('DELETE', path, { auth: carol.bearer, body: { content: 'heart' } })).status, 200);
  t.is((await hearth.call('DELETE', path, { auth: carol.bearer, body: { content: 'zzz' } })).status, 200);
  t.is((await reactionRows(hearth, issue.id)).length, 1, 'removing a reaction one does not have changes nothing');
  const removed = await hearth.call('DELETE', path, { auth: root.bearer, body: { content: 'heart' } });
  t.is(removed.status, 200);
  t.deepEqual(await reactionRows(hearth, issue.id), []);
  t.deepEqual((await reactionEvents(hearth, repo.id)).map((e) => e.kind), ['issue.reaction_added', 'issue.reaction_removed']);
  t.is((await hearth.call('GET', '/repos/alice/tool/issues/9/reactions')).status, 404);
});

test('reactions of a private repository are 404 to those who cannot read it', async (t) => {
  const { hearth, alice, bob } = await setUp(t);
  const secret = await build.repo(hearth, alice, { name: 'secret', private: true });
  await build.issue(hearth, secret);
  t.is((await hearth.call('POST', '/repos/alice/secret/issues/1/reactions', { auth: alice.bearer, body: { content: 'eyes' } })).status, 201);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues/1/reactions')).status, 404);
  t.is((await hearth.call('GET', '/repos/alice/secret/issues/1/reactions', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('POST', '/repos/alice/secret/issues/1/reactions', { auth: bob.bearer, body: { content: 'eyes' } })).status, 404);
  const own = await hearth.call('GET', '/repos/alice/secret/issues/1/reactions', { auth: alice.bearer });
  t.is(own.status, 200);
  t.is(own.body.length, 1);
});

test('comment reactions: listed per comment, and a comment of another repository is not reachable', async (t) => {
  const { hearth, alice, carol, issue } = await setUp(t);
  const comment = await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth: carol.bearer, body: { body: 'a comment' } });
  t.is(comment.status, 201);
  const path = `/repos/alice/tool/issues/comments/${comment.body.id}/reactions`;
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'laugh' } })).status, 201);
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'laugh' } })).status, 200);
  t.is((await hearth.call('POST', path, { auth: alice.bearer, body: { content: 'nope' } })).status, 403);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/reactions', { auth: alice.bearer, body: { content: 'laugh' } })).status, 201,
    'the issue and its comment hold reactions apart');
  t.deepEqual(await reactionRows(hearth, issue.id), [
    { type: 'laugh', user_id: alice.user.id, comment_id: comment.body.id },
    { type: 'laugh', user_id: alice.user.id, comment_id: null },
  ]);
  const listed = await hearth.call('GET', path);
  t.is(listed.status, 200);
  t.deepEqual(listed.body.map((r: { content: string }) => r.content), ['laugh']);

  await build.repo(hearth, alice, { name: 'other' });
  const elsewhere = `/repos/alice/other/issues/comments/${comment.body.id}/reactions`;
  t.is((await hearth.call('GET', elsewhere)).status, 404);
  t.is((await hearth.call('POST', elsewhere, { auth: alice.bearer, body: { content: '+1' } })).status, 404);
  t.is((await hearth.call('DELETE', elsewhere, { auth: alice.bearer, body: { content: 'laugh' } })).status, 404);
  t.is((await hearth.call('DELETE', path, { auth: alice.bearer, body: { content: 'laugh' } })).status, 200);
  t.deepEqual((await reactionRows(hearth, issue.id)).map((r) => r.comment_id), [null]);
});

test('a user blocked by the author of the issue may not react to it', async (t) => {
  const { hearth, alice, carol, repo, issue } = await setUp(t);
  const dave = await hearth.createUser('dave');
  await hearth.call('PUT', '/repos/alice/tool/collaborators/dave', { auth: alice.bearer, body: { permission: 'write' } });
  await build.issue(hearth, repo, { title: 'by dave', by: dave.user });
  t.is((await hearth.call('PUT', '/user/blocks/carol', { auth: dave.bearer })).status, 204);
  const blocked = await hearth.call('POST', '/repos/alice/tool/issues/2/reactions', { auth: carol.bearer, body: { content: 'heart' } });
  t.is(blocked.status, 403);
  t.regex(blocked.body.message, /blocked/);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues/1/reactions', { auth: carol.bearer, body: { content: 'heart' } })).status, 201);
  t.deepEqual((await hearth.store.db.query<{ issue_id: number }>('SELECT issue_id FROM reaction')).map((r) => r.issue_id), [issue.id]);
});
