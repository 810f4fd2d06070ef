import { randomUUID } from 'node:crypto';
import { enqueue } from '../../../jobs/queue.js';
import type { Tx } from '../../data-source.js';
import { forbidden } from '../../errors.js';
import type { GitRepo } from '../../git/repo.js';
import type { RefUpdate } from './branch-protection.js';
import { syncBranchRows } from './branch-rows.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

/**
 * The one way a ref change (a git push, a contents write, a branch or tag made or removed through the API, a pull
 * mirror's sync) reaches the database and the event stream. The rows of the changed branches follow git at once,
 * so branch lists (read from rows) show the change as soon as it commits; one branch-sync job, committed with the
 * caller's transaction, carries the updates; its sync (`syncPush`) brings branch rows and tag releases in line
 * again and emits the `push` events, once per call (push mirrors with sync_on_commit react to those), and lets the pushed
 * commits reference, close and reopen issues (`applyPushToIssues`; not for a mirror's sync). A pull mirror's refs change only through its sync (`mirrorSync`); any other write is refused and
 * rolled back.
 */
export async function recordRefUpdates(
  tx: Tx, repoGit: GitRepo, repo: RepoRow, doer: UserRow, updates: RefUpdate[], options: { mirrorSync?: boolean } = {},
): Promise<void> {
  if (updates.length === 0) return;
  if (repo.is_mirror && !options.mirrorSync) throw forbidden('mirror repository is read-only');
  const branches = updates.filter((u) => u.ref.startsWith('refs/heads/')).map((u) => u.ref.slice('refs/heads/'.length));
  if (branches.length > 0) await syncBranchRows(tx, repoGit, repo.id, doer.id, branches);
  await enqueue(tx, 'branch-sync', { pushId: randomUUID(), repoId: repo.id, pusherId: doer.id, updates, ...(options.mirrorSync ? { mirrorSync: true } : {}) });
}
