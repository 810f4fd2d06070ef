import { z } from 'zod';
import type { Tx } from '../data-source.js';
import { checkPayload, type EventKind, type EventPayload } from './catalogue.js';

/**
 * Records a domain event in the caller's transaction. The events issue turns these into `notify`
 * jobs (webhooks, notifications, mail); until then they are kept for audit and for that fan-out.
 * A payload that does not match its kind's schema is a programming error and throws.
 */
export async function emit<K extends EventKind>(
  tx: Tx,
  event: { kind: K; repoId?: number | null; doerId?: number | null; payload: EventPayload<K> },
): Promise<void> {
  const checked = checkPayload(event.kind, event.payload);
  if (!checked.success) throw new Error(`${event.kind} event payload does not match the catalogue:\n${z.prettifyError(checked.error)}`);
  await tx.query('INSERT INTO domain_event (kind, repo_id, doer_id, payload) VALUES ($1, $2, $3, $4)', [
    event.kind,
    event.repoId ?? null,
    event.doerId ?? null,
    JSON.stringify(checked.data),
  ]);
}
