import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

/**
 * Gitea's mustNotBeArchived, declared on the routes (`repo: { notArchived: true }`): every change it guards answers
 * 423 with Gitea's message once the repository is archived, and nothing is written.
 */
test('an archived repository refuses every change its routes declare, with 423 and nothing written', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const auth = alice.bearer;
  t.is((await hearth.call('POST', '/repos/alice/tool/branches', { auth, body: { new_branch_name: 'topic' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/tags', { auth, body: { tag_name: 'v1' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/branch_protections', { auth, body: { rule_name: 'main' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues', { auth, body: { title: 'first' } })).status, 201);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues', { auth, body: { title: 'second' } })).status, 201);
  const comment = await hearth.call('POST', '/repos/alice/tool/issues/1/comments', { auth, body: { body: 'hello' } });
  t.is(comment.status, 201);
  t.is((await hearth.call('PATCH', '/repos/alice/tool', { auth, body: { archived: true } })).status, 200);

  const refusals: Array<[string, string, unknown?]> = [
    ['POST', '/repos/alice/tool/issues', { title: 'x' }],
    ['POST', '/repos/alice/tool/issues/1/comments', { body: 'x' }],
    ['PATCH', `/repos/alice/tool/issues/comments/${comment.body.id}`, { body: 'changed' }],
    ['PATCH', `/repos/alice/tool/issues/1/comments/${comment.body.id}`, { body: 'changed' }],
    ['POST', '/repos/alice/tool/issues/1/dependencies', { index: 2 }],
    ['DELETE', '/repos/alice/tool/issues/1/dependencies', { index: 2 }],
    ['POST', '/repos/alice/tool/pulls', { head: 'topic', base: 'main', title: 'x' }],
    ['POST', '/repos/alice/tool/pulls/1/merge', { Do: 'merge' }],
    ['DELETE', '/repos/alice/tool/pulls/1/merge'],
    ['POST', '/repos/alice/tool/branches', { new_branch_name: 'other' }],
    ['DELETE', '/repos/alice/tool/branches/topic'],
    ['POST', '/repos/alice/tool/tags', { tag_name: 'v2' }],
    ['DELETE', '/repos/alice/tool/tags/v1'],
    ['POST', '/repos/alice/tool/branch_protections', { rule_name: 'topic' }],
    ['PATCH', '/repos/alice/tool/branch_protections/main', { enable_push: true }],
  ];
  for (const [method, path, body] of refusals) {
    const answer = await hearth.call(method, path, { auth, body });
    t.is(answer.status, 423, `${method} ${path}`);
    t.is(answer.body.message, 'repo is archived', `${method} ${path}`);
  }

  const [counts] = await hearth.store.db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM issue WHERE repo_id = $1) AS issues,
            (SELECT count(*)::int FROM comment c JOIN issue i ON i.id = c.issue_id WHERE i.repo_id = $1 AND c.type = 0) AS comments,
            (SELECT count(*)::int FROM issue_dependency d JOIN issue i ON i.id = d.issue_id WHERE i.repo_id = $1) AS dependencies,
            (SELECT count(*)::int FROM protected_branch WHERE repo_id = $1) AS protections,
            (SELECT count(*)::int FROM release WHERE repo_id = $1) AS tags,
            (SELECT string_agg(name, ',' ORDER BY name) FROM branch WHERE repo_id = $1) AS branches,
            (SELECT bool_and(NOT can_push) FROM protected_branch WHERE repo_id = $1) AS push_still_off`,
    [repo.id],
  );
  t.deepEqual(counts, { issues: 2, comments: 1, dependencies: 0, protections: 1, tags: 1, branches: 'main,topic', push_still_off: true });
  const [stored] = await hearth.store.db.query<{ content: string }>('SELECT content FROM comment WHERE id = $1', [comment.body.id]);
  t.is(stored.content, 'hello');
  const git = hearth.deps.git.open(repo);
  t.truthy(await git.resolve('refs/heads/topic'));
  t.truthy(await git.resolve('refs/tags/v1'));
  t.is(await git.resolve('refs/heads/other'), null);
  t.is(await git.resolve('refs/tags/v2'), null);
});
