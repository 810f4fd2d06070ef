import { z } from 'zod';
import type { Tx } from '../data-source.js';
import { enqueue } from '../../jobs/queue.js';
import { checkPayload, type EventKind, type EventPayload } from './catalogue.js';
import type { EventSnapshot } from './snapshot.js';

/**
 * Records a domain event and one `notify` job carrying its id in the caller's transaction: both exist exactly
 * when the change commits. The notifier fans the event out to webhooks, notification threads and mail.
 * A payload that does not match its kind's schema is a programming error and throws.
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
): Promise<number> {
  const checked = checkPayload(event.kind, event.payload);
  if (!checked.success) throw new Error(`${event.kind} event payload does not match the catalogue:\n${z.prettifyError(checked.error)}`);
  const [row] = await tx.query<{ id: string }>('INSERT INTO domain_event (kind, repo_id, doer_id, payload, snapshot) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
    event.kind,
    event.repoId ?? null,
    event.doerId ?? null,
    JSON.stringify(checked.data),
    event.snapshot ? JSON.stringify(event.snapshot) : null,
  ]);
  const eventId = Number(row.id);
  await enqueue(tx, 'notify', { eventId });
  return eventId;
}
