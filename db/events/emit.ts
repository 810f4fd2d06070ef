import { z } from 'zod';
import type { Tx } from '../data-source.js';
import { insertJobsSql } from '../../jobs/queue.js';
import { checkPayload, type DomainEvent, type EventKind, type EventPayload } from './catalogue.js';
import type { EventSnapshot } from './snapshot.js';

/** Transactions that are writing imported data (a migration's issues, comments, releases): they record no events. */
const importing = new WeakSet<Tx>();

/**
 * Runs `work` in `tx` with no domain events recorded, so nothing it changes reaches webhooks, notification threads or
 * mail: Gitea's migrations insert what they import without notifying anyone. The model operations `work` calls still
 * keep counters, indexes and timelines as usual. Events emitted after it returns are recorded as usual.
 */
export async function withoutEvents<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
  if (importing.has(tx)) return work();
  importing.add(tx);
  try {
    return await work();
  } finally {
    importing.delete(tx);
  }
}

/** The payload as its kind's schema reads it; one that does not match is a programming error and throws. */
function checkedPayload<K extends EventKind>(kind: K, payload: unknown): EventPayload<K> {
  const checked = checkPayload(kind, payload);
  if (!checked.success) throw new Error(`${kind} event payload does not match the catalogue:\n${z.prettifyError(checked.error)}`);
  return checked.data;
}

/**
 * Records a domain event and one `notify` job carrying its id in the caller's transaction, in one statement: both
 * exist exactly when the change commits. The notifier fans the event out to webhooks, notification threads and mail.
 * A payload that does not match its kind's schema is a programming error and throws. Inside withoutEvents nothing is
 * recorded and the answer is null.
 */
export async function emit<K extends EventKind>(
  tx: Tx,
  event: {
    kind: K;
    repoId?: number | null;
    doerId?: number | null;
    payload: EventPayload<K>;
    /** Rows the change deletes that rendering the event needs (a deleted repository or release), by name. */
    snapshot?: EventSnapshot;
  },
): Promise<number | null> {
  const payload = checkedPayload(event.kind, event.payload);
  if (importing.has(tx)) return null;
  const [row] = await tx.query<{ event_id: string }>(
    `WITH event AS (INSERT INTO domain_event (kind, repo_id, doer_id, payload, snapshot) VALUES ($1, $2, $3, $4, $5) RETURNING id)
     ${insertJobsSql('notify', `jsonb_build_object('eventId', event.id)`, 'event')}
     RETURNING data->>'eventId' AS event_id`,
    [event.kind, event.repoId ?? null, event.doerId ?? null, JSON.stringify(payload), event.snapshot ? JSON.stringify(event.snapshot) : null],
  );
  // the job joins its queue: were the queue missing, the event would be written without a job, so the change fails
  if (!row) throw new Error('the notify queue does not exist');
  return Number(row.event_id);
}

/**
 * emit inside the change's own statement, for a change that is one statement with no transaction of its own: WITH
 * items that record the event (with its `notify` job) once if the WITH item `from` has a row, that is, if the change
 * was made. The statement's parameter `param` holds `eventParam(event)`.
 */
export function emitInStatementSql(from: string, param: string): string {
  return `event AS (
       INSERT INTO domain_event (kind, repo_id, doer_id, payload)
       SELECT e.kind, e.repo_id, e.doer_id, e.payload
         FROM (SELECT 1 FROM ${from} LIMIT 1) AS made, jsonb_to_record(${param}::jsonb) AS e (kind text, repo_id bigint, doer_id bigint, payload jsonb)
       RETURNING id),
     notify AS (${insertJobsSql('notify', `jsonb_build_object('eventId', event.id)`, 'event')})`;
}

/** The event for emitInStatementSql, its payload checked as emit checks it. */
export function eventParam<K extends EventKind>(event: DomainEvent<K>): string {
  const payload = checkedPayload(event.kind, event.payload);
  return JSON.stringify({ kind: event.kind, repo_id: event.repoId ?? null, doer_id: event.doerId ?? null, payload });
}

/**
 * Events whose payloads name a value that only the transaction's last statement decides, written by that statement
 * (see reserveEvents).
 */
export interface ReservedEvents {
  /** The statement's parameter: the rows, as JSON. */
  rows: string;
  /**
   * The data-modifying WITH item that inserts the rows, each payload's `key` set to the SQL expression `value`.
   * `rows` names the parameter holding `rows`.
   */
  insert(rows: string, key: string, value: string): string;
  /** Checks the payloads as the statement completed them, `key` set to `value`: a mismatch is a programming error. */
  check(key: string, value: unknown): void;
}

/**
 * New domain event ids for reserveEvents' `drawnIds`, with the `notify` jobs carrying them, as WITH items of a
 * statement the caller runs anyway rather than round trips of their own: `drawn` holds `count` (an SQL expression) ids
 * (ids drawn and not used leave a gap, as any rolled-back insert does), and a job carrying each is inserted unless `tx` records no
 * events (withoutEvents). The caller reads the ids as `ARRAY(SELECT id FROM drawn ORDER BY id)` for reserveEvents.
 */
export function drawEventIdsWithJobsSql(tx: Tx, count: string): string {
  return `drawn AS MATERIALIZED (SELECT nextval(pg_get_serial_sequence('domain_event', 'id')) AS id FROM generate_series(1, ${count})),
     notify AS (${insertJobsSql('notify', `jsonb_build_object('eventId', queued.id)`, `(SELECT id FROM drawn WHERE ${importing.has(tx) ? 'false' : 'true'}) AS queued`)})`;
}

/**
 * emit in two halves, for a change that must end with a statement taking a contended lock (a new issue's number,
 * see numberIssue) and whose events name what that statement decides: the ids and
 * the `notify` jobs first (drawEventIdsWithJobsSql, in a statement the caller runs anyway), and the rows from that statement itself, so that concurrent
 * changes queue for one statement and the commit. As with emit, rows and jobs exist exactly when the change commits
 * (and none inside withoutEvents: the statement then inserts no rows).
 */
export function reserveEvents(tx: Tx, allEvents: DomainEvent[], drawnIds: number[]): ReservedEvents {
  const events = importing.has(tx) ? [] : allEvents;
  // drawn by drawEventIdsWithJobsSql, every drawn id has its job queued: so every id must be an event's
  if (events.length > 0 && drawnIds.length !== events.length) throw new Error(`${drawnIds.length} event ids drawn for ${events.length} events`);
  const ids = drawnIds;
  const rows = events.map((event, i) => ({ id: ids[i], kind: event.kind, repo_id: event.repoId ?? null, doer_id: event.doerId ?? null, payload: event.payload }));
  return {
    rows: JSON.stringify(rows),
    insert: (param, key, value) => {
      if (!/^[a-z_]+$/.test(key)) throw new Error(`not a payload key: ${key}`);
      return `INSERT INTO domain_event (id, kind, repo_id, doer_id, payload)
       SELECT e.id, e.kind, e.repo_id, e.doer_id, e.payload || jsonb_build_object('${key}', ${value})
       FROM jsonb_to_recordset(${param}::jsonb) AS e (id bigint, kind text, repo_id bigint, doer_id bigint, payload jsonb)`;
    },
    check: (key, value) => {
      for (const row of allEvents) checkedPayload(row.kind, { ...row.payload, [key]: value });
    },
  };
}
