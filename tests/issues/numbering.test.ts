import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { createIssue } from '../../db/models/issues/issues.js';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';

test('a creation numbers its issue last: its events carry the index, each with one notify job; a rollback leaves nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'numbered' });
  await build.issue(hearth, repo, { title: 'first' });

  const answer = await hearth.call('POST', '/repos/alice/numbered/issues', { auth: alice.bearer, body: { title: 'second', assignees: ['alice'] } });
  t.is(answer.status, 201, JSON.stringify(answer.body));
  t.is(answer.body.number, 2);
  t.is(answer.body.assignees?.[0]?.login, 'alice');
  const events = await hearth.store.db.query<{ id: number; kind: string; payload: Record<string, unknown> }>(
    `SELECT id, kind, payload FROM domain_event WHERE repo_id = $1 AND payload->>'issue_id' = $2 ORDER BY id`, [repo.id, String(answer.body.id)],
  );
  t.deepEqual(events.map(({ kind, payload }) => ({ kind, payload })), [
    { kind: 'issue.opened', payload: { issue_id: answer.body.id, index: 2, is_pull: false } },
    { kind: 'issue.assigned', payload: { issue_id: answer.body.id, index: 2, is_pull: false, assignee_id: alice.user.id } },
  ]);
  for (const event of events) {
    const jobs = await hearth.store.db.query(`SELECT 1 FROM pgboss.job WHERE name = 'notify' AND (data->>'eventId')::bigint = $1`, [event.id]);
    t.is(jobs.length, 1, `notify jobs of event ${event.id}`);
  }
  const [{ index }] = await hearth.store.db.query<{ index: number }>('SELECT index FROM issue WHERE id = $1', [answer.body.id]);
  t.is(index, 2);

  const failure = new Error('roll back after numbering');
  const [{ before }] = await hearth.store.db.query<{ before: number }>(`SELECT count(*)::int AS before FROM pgboss.job WHERE name = 'notify'`);
  await t.throwsAsync(inTx(hearth.store, async (tx) => {
    const made = await createIssue(tx, repo, alice.user, { title: 'rolled back', assignees: [alice.user] });
    t.is(made.index, 3);
    throw failure;
  }), { is: failure });
  t.deepEqual(await hearth.store.db.query(`SELECT id FROM issue WHERE repo_id = $1 AND title = 'rolled back'`, [repo.id]), []);
  const [{ after }] = await hearth.store.db.query<{ after: number }>(`SELECT count(*)::int AS after FROM pgboss.job WHERE name = 'notify'`);
  t.is(after, before);
  const next = await hearth.call('POST', '/repos/alice/numbered/issues', { auth: alice.bearer, body: { title: 'third' } });
  t.is(next.body.number, 3);
  const [counters] = await hearth.store.db.query('SELECT num_issues FROM repository WHERE id = $1', [repo.id]);
  t.deepEqual(counters, { num_issues: 3 });
});

test('a transaction that releases its locks before the flush returns from inTx only once its commit is on disk', async (t) => {
  const hearth = await startHearth(t);
  const bob = await hearth.createUser('bob');
  const { lsn, setting } = await inTx(hearth.store, async (tx) => {
    await tx.query(`SELECT ${tx.releaseLocksBeforeFlush()}`);
    const [{ synchronous_commit }] = await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    await tx.query(`UPDATE "user" SET full_name = 'Bob' WHERE id = $1`, [bob.user.id]);
    const [row] = await tx.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return { lsn: row.lsn, setting: synchronous_commit };
  });
  t.is(setting, 'off');
  // the commit record follows `lsn`; without a flush the WAL writer would write it only within wal_writer_delay (200 ms)
  const [{ flushed }] = await hearth.store.db.query<{ flushed: boolean }>('SELECT pg_current_wal_flush_lsn() > $1::pg_lsn AS flushed', [lsn]);
  t.true(flushed);
  const [user] = await hearth.store.db.query('SELECT full_name FROM "user" WHERE id = $1', [bob.user.id]);
  t.deepEqual(user, { full_name: 'Bob' });
});
