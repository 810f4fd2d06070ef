import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { createBadge } from '../../db/models/users/badges.js';
import { startHearth } from '../helpers/hearth.js';

test('a user blocks, checks, lists and unblocks another user; blocking ends follows both ways', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  t.is((await hearth.call('PUT', '/user/following/alice', { auth: bob.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/following/bob', { auth: alice.bearer })).status, 204);

  t.is((await hearth.call('GET', '/user/blocks/bob', { auth: alice.bearer })).status, 404, 'not blocked yet');
  t.is((await hearth.call('PUT', '/user/blocks/bob?note=spam', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('PUT', '/user/blocks/carol', { auth: alice.bearer })).status, 204);
  const [row] = await hearth.store.db.query<{ note: string }>('SELECT note FROM user_blocking WHERE blocker_id = $1 AND blockee_id = $2', [alice.user.id, bob.user.id]);
  t.is(row.note, 'spam');
  t.deepEqual(await hearth.store.db.query('SELECT 1 FROM follow WHERE (user_id = $1 AND follow_id = $2) OR (user_id = $2 AND follow_id = $1)', [alice.user.id, bob.user.id]), []);

  t.is((await hearth.call('GET', '/user/blocks/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('GET', '/user/blocks/alice', { auth: bob.bearer })).status, 404, 'blocking is one way');
  const list = await hearth.call('GET', '/user/blocks', { auth: alice.bearer });
  t.is(list.status, 200);
  t.deepEqual(list.body.map((u: { login: string }) => u.login).sort(), ['bob', 'carol']);
  t.is(list.headers.get('x-total-count'), '2');
  t.is((await hearth.call('GET', '/user/blocks?limit=1', { auth: alice.bearer })).body.length, 1);

  t.is((await hearth.call('PUT', '/user/blocks/bob', { auth: alice.bearer })).status, 422, 'already blocked');
  t.is((await hearth.call('PUT', '/user/blocks/alice', { auth: alice.bearer })).status, 422, 'oneself');
  t.is((await hearth.call('PUT', '/user/blocks/nobody', { auth: alice.bearer })).status, 404);
  t.is((await hearth.call('GET', '/user/blocks/nobody', { auth: alice.bearer })).status, 404);

  t.is((await hearth.call('DELETE', '/user/blocks/bob', { auth: alice.bearer })).status, 204);
  t.is((await hearth.call('DELETE', '/user/blocks/bob', { auth: alice.bearer })).status, 422, 'not blocked any more');
  t.is((await hearth.call('GET', '/user/blocks/bob', { auth: alice.bearer })).status, 404);
  const left = await hearth.store.db.query<{ blockee_id: number }>('SELECT blockee_id FROM user_blocking WHERE blocker_id = $1', [alice.user.id]);
  t.deepEqual(left.map((r) => r.blockee_id), [carol.user.id]);

  const reader = await hearth.createUser('reader', { scopes: ['read:user'] });
  t.is((await hearth.call('GET', '/user/blocks', { auth: reader.bearer })).status, 200);
  t.is((await hearth.call('PUT', '/user/blocks/bob', { auth: reader.bearer })).status, 403);
  t.is((await hearth.call('GET', '/user/blocks')).status, 401);
});

test('administrators give badges to users, list and take them away', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  await inTx(hearth.store, async (tx) => {
    await createBadge(tx, { slug: 'early', description: 'Early adopter', image_url: 'https://example.com/early.png' });
    await createBadge(tx, { slug: 'helper', description: 'Helps others' });
  });

  t.deepEqual((await hearth.call('GET', '/admin/users/alice/badges', { auth: root.bearer })).body, []);
  t.is((await hearth.call('POST', '/admin/users/alice/badges', { auth: root.bearer, body: { badge_slugs: ['early', 'helper'] } })).status, 204);
  t.is((await hearth.call('POST', '/admin/users/alice/badges', { auth: root.bearer, body: { badge_slugs: ['early'] } })).status, 204, 'giving a badge twice changes nothing');
  const listed = await hearth.call('GET', '/admin/users/alice/badges', { auth: root.bearer });
  t.is(listed.status, 200);
  t.is(listed.headers.get('x-total-count'), '2');
  t.like(listed.body, [
    { slug: 'early', description: 'Early adopter', image_url: 'https://example.com/early.png' },
    { slug: 'helper', description: 'Helps others', image_url: '' },
  ]);
  t.true(listed.body.every((badge: { id: number }) => badge.id > 0));

  const unknown = await hearth.call('POST', '/admin/users/alice/badges', { auth: root.bearer, body: { badge_slugs: ['helper', 'nonesuch'] } });
  t.is(unknown.status, 422);
  t.regex(unknown.body.message, /nonesuch/);
  const held = async (): Promise<number> => (await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_badge WHERE user_id = $1', [alice.user.id]))[0].n;
  t.is(await held(), 2);

  t.is((await hearth.call('DELETE', '/admin/users/alice/badges', { auth: root.bearer, body: { badge_slugs: ['early', 'nonesuch'] } })).status, 204);
  t.deepEqual((await hearth.call('GET', '/admin/users/alice/badges', { auth: root.bearer })).body.map((b: { slug: string }) => b.slug), ['helper']);
  t.is(await held(), 1);

  t.is((await hearth.call('GET', '/admin/users/alice/badges', { auth: alice.bearer })).status, 403);
  t.is((await hearth.call('POST', '/admin/users/alice/badges', { auth: alice.bearer, body: { badge_slugs: ['early'] } })).status, 403);
  t.is((await hearth.call('GET', '/admin/users/nobody/badges', { auth: root.bearer })).status, 404);
  const readAdmin = await hearth.createUser('auditor', { admin: true, scopes: ['read:admin'] });
  t.is((await hearth.call('GET', '/admin/users/alice/badges', { auth: readAdmin.bearer })).status, 200);
  t.is((await hearth.call('DELETE', '/admin/users/alice/badges', { auth: readAdmin.bearer, body: { badge_slugs: ['helper'] } })).status, 403);
  t.is(await held(), 1);
});
