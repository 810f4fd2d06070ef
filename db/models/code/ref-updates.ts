import { randomUUID } from 'node:crypto';
import { enqueue } from '../../../jobs/queue.js';
import type { Tx } from '../../data-source.js';
import type { RefUpdate } from './branch-protection.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

/**
 * The one way a ref change (a git push, a contents write, a branch or tag made or removed through the API)
 * reaches the database and the event stream: one branch-sync job, committed with the caller's transaction,
 * carries the updates; its sync (`syncPush`) brings branch rows and tag releases in line and emits the `push`
 * events, once per call.
 */
export async function recordRefUpdates(tx: Tx, repo: RepoRow, doer: UserRow, updates: RefUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  await enqueue(tx, 'branch-sync', { pushId: randomUUID(), repoId: repo.id, pusherId: doer.id, updates });
}
