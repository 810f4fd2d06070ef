import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

const config = { url: 'https://example.com/hook', content_type: 'json', secret: 'sssh' };

test('repository hooks: create, list, get, edit and delete with Gitea shapes; the secret and authorization header are stored sealed and never shown', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });

  const made = await hearth.call('POST', '/repos/alice/tool/hooks', {
    auth: alice.bearer,
    body: { type: 'gitea', config, events: ['push', 'issues'], branch_filter: '{main,release/*}', active: true, authorization_header: 'Bearer top-secret' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    type: 'gitea', branch_filter: '{main,release/*}', config: { url: config.url, content_type: 'json' }, authorization_header: '', active: true,
  });
  t.deepEqual(Object.keys(made.body.config).sort(), ['content_type', 'url']);
  t.deepEqual(made.body.events, ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment', 'push']);
  t.regex(made.body.created_at, /^\d{4}-\d\d-\d\dT/);
  t.false(JSON.stringify(made.body).includes('sssh'));

  const [stored] = await hearth.store.db.query<{ secret_sealed: string; authorization_sealed: string }>('SELECT secret_sealed, authorization_sealed FROM webhook WHERE id = $1', [made.body.id]);
  t.true(stored.secret_sealed.startsWith('v1:'));
  t.false(stored.secret_sealed.includes('sssh'));
  t.false(stored.authorization_sealed.includes('top-secret'));

  const listed = await hearth.call('GET', '/repos/alice/tool/hooks', { auth: alice.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '1');
  t.deepEqual(listed.body, [made.body]);
  t.deepEqual((await hearth.call('GET', `/repos/alice/tool/hooks/${made.body.id}`, { auth: alice.bearer })).body, made.body);

  const edited = await hearth.call('PATCH', `/repos/alice/tool/hooks/${made.body.id}`, {
    auth: alice.bearer, body: { config: { content_type: 'form' }, events: ['create', 'delete'], active: false },
  });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.like(edited.body, { active: false, branch_filter: '', config: { url: config.url, content_type: 'form' }, events: ['create', 'delete'] });
  const [kept] = await hearth.store.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhook WHERE id = $1', [made.body.id]);
  t.is(kept.secret_sealed, stored.secret_sealed, 'a secret not given is kept');

  t.is((await hearth.call('DELETE', `/repos/alice/tool/hooks/${made.body.id}`, { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', `/repos/alice/tool/hooks/${made.body.id}`, { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('DELETE', `/repos/alice/tool/hooks/${made.body.id}`, { auth: alice.bearer })).status, 404);
});

test('bad hook input is a 422 with a message and stores nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  const cases: Array<[unknown, RegExp]> = [
    [{ type: 'nope', config }, /Invalid hook type: nope/],
    [{ type: 'gitea', config: { content_type: 'json' } }, /Missing config option: url/],
    [{ type: 'gitea', config: { url: 'not a url', content_type: 'json' } }, /Invalid url/],
    [{ type: 'gitea', config: { url: 'ftp://example.com/x', content_type: 'json' } }, /Invalid url/],
    [{ type: 'gitea', config: { url: config.url, content_type: 'xml' } }, /Invalid content type/],
    [{ type: 'gitea', config, events: ['push', 'bogus'] }, /Invalid hook event: bogus/],
    [{ type: 'gitea', config, branch_filter: '[main' }, /Invalid branch filter/],
    [{ type: 'gitea', config, branch_filter: '{main' }, /Invalid branch filter/],
  ];
  for (const [body, message] of cases) {
    const answer = await hearth.call('POST', '/repos/alice/tool/hooks', { auth: alice.bearer, body });
    t.is(answer.status, 422, JSON.stringify(body));
    t.regex(answer.body.message, message);
  }
  const [{ count }] = await hearth.store.db.query<{ count: number }>('SELECT count(*)::int AS count FROM webhook');
  t.is(count, 0);
});

test('organization, user and system hooks live at their level; only owners and administrators reach them', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.org(hearth, alice, { name: 'acme' });

  const orgHook = await hearth.call('POST', '/orgs/acme/hooks', { auth: alice.bearer, body: { type: 'gogs', config } });
  t.is(orgHook.status, 201, JSON.stringify(orgHook.body));
  t.like(orgHook.body, { type: 'gogs', active: false, events: ['push'] });
  t.is((await hearth.call('GET', '/orgs/acme/hooks', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', `/orgs/acme/hooks/${orgHook.body.id}`, { auth: alice.bearer })).body.id, orgHook.body.id);

  const userHook = await hearth.call('POST', '/user/hooks', { auth: bob.bearer, body: { type: 'gitea', config, events: ['repository'] } });
  t.is(userHook.status, 201);
  t.deepEqual((await hearth.call('GET', '/user/hooks', { auth: bob.bearer })).body.map((h: { id: number }) => h.id), [userHook.body.id]);
  t.deepEqual((await hearth.call('GET', '/user/hooks', { auth: alice.bearer })).body, []);
  t.is((await hearth.call('GET', `/user/hooks/${userHook.body.id}`, { auth: alice.bearer })).status, 404, "another user's hook is not found");
  t.is((await hearth.call('GET', `/user/hooks/${orgHook.body.id}`, { auth: alice.bearer })).status, 404, 'an organization hook is not a user hook');

  t.is((await hearth.call('POST', '/admin/hooks', { auth: alice.bearer, body: { type: 'gitea', config } })).status, 403);
  const systemHook = await hearth.call('POST', '/admin/hooks', { auth: root.bearer, body: { type: 'gitea', config, events: ['release'], active: true } });
  t.is(systemHook.status, 201);
  t.deepEqual((await hearth.call('GET', '/admin/hooks', { auth: root.bearer })).body.map((h: { id: number }) => h.id), [systemHook.body.id]);
  const edited = await hearth.call('PATCH', `/admin/hooks/${systemHook.body.id}`, { auth: root.bearer, body: { events: ['repository'] } });
  t.deepEqual(edited.body.events, ['repository']);
  t.is((await hearth.call('DELETE', `/admin/hooks/${systemHook.body.id}`, { auth: root.bearer })).status, 204);
  t.is((await hearth.call('PATCH', `/orgs/acme/hooks/${orgHook.body.id}`, { auth: alice.bearer, body: { config: { url: 'nope' } } })).status, 422);
  t.is((await hearth.call('DELETE', `/user/hooks/${userHook.body.id}`, { auth: bob.bearer })).status, 204);
});

test('git hooks answer as Gitea does with server-side git hooks disabled; a repository hook needs the repository admin', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const list = await hearth.call('GET', '/repos/alice/tool/hooks/git', { auth: alice.bearer });
  t.is(list.status, 403);
  t.is(list.body.message, 'must be allowed to edit Git hooks');
  t.is((await hearth.call('GET', '/repos/alice/tool/hooks/git/pre-receive', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('PATCH', '/repos/alice/tool/hooks/git/pre-receive', { auth: alice.bearer, body: { content: 'x' } })).status, 403);
  t.is((await hearth.call('DELETE', '/repos/alice/tool/hooks/git/pre-receive', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/hooks', { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/repos/alice/tool/hooks')).status, 401);
});
