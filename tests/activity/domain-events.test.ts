import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { emit } from '../../db/events/emit.js';
import { startHearth } from '../helpers/hearth.js';

test('emit stores a payload that matches its kind and refuses one that does not', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await inTx(hearth.store, (tx) => emit(tx, { kind: 'user.blocked', doerId: alice.user.id, payload: { blocker_id: alice.user.id, blockee_id: 7 } }));
  const refused = await t.throwsAsync(inTx(hearth.store, (tx) =>
    // @ts-expect-error: the payload of another shape fails the type check as well
    emit(tx, { kind: 'repository.renamed', doerId: alice.user.id, payload: { from: 'a', to: 'b' } })));
  t.regex(refused.message, /repository\.renamed/);
  const rows = await hearth.store.db.query<{ kind: string; payload: unknown }>('SELECT kind, payload FROM domain_event WHERE doer_id = $1', [alice.user.id]);
  t.deepEqual(rows, [{ kind: 'user.blocked', payload: { blocker_id: alice.user.id, blockee_id: 7 } }]);
});

test('a stored event whose payload its kind no longer accepts is left out of the feed', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const made = await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'tools' } });
  await hearth.store.db.query(
    `INSERT INTO domain_event (kind, repo_id, doer_id, payload) VALUES ('repository.renamed', $1, $2, '{"from": "old", "to": "tools"}')`,
    [made.body.id, alice.user.id],
  );
  const feed = await hearth.call('GET', '/repos/alice/tools/activities/feeds', { auth: alice.bearer });
  t.is(feed.status, 200, JSON.stringify(feed.body));
  t.deepEqual(feed.body.map((a: { op_type: string }) => a.op_type), ['create_repo']);
});
