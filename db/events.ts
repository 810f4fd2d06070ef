import type { Tx } from './data-source.js';

/** What happened, to whom, by whom: the facts of the moment, stored with the state change that caused them. */
export interface DomainEvent {
  kind: string;
  repoId?: number | null;
  doerId?: number | null;
  payload?: Record<string, unknown>;
}

/**
 * Records a domain event in the caller's transaction. The events issue turns these into `notify`
 * jobs (webhooks, notifications, mail); until then they are kept for audit and for that fan-out.
 */
export async function emit(tx: Tx, event: DomainEvent): Promise<void> {
  await tx.query('INSERT INTO domain_event (kind, repo_id, doer_id, payload) VALUES ($1, $2, $3, $4)', [
    event.kind,
    event.repoId ?? null,
    event.doerId ?? null,
    JSON.stringify(event.payload ?? {}),
  ]);
}
