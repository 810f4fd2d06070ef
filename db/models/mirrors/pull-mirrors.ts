import type { Store, Tx } from '../../data-source.js';
import { inTx } from '../../data-source.js';
import { badRequest } from '../../errors.js';
import { zeroOid } from '../../git/objects.js';
import { enqueue } from '../../../jobs/queue.js';
import { mirrorJobExpirySeconds } from '../../../jobs/catalogue.js';
import type { Services } from '../../services.js';
import type { RefUpdate } from '../code/branch-protection.js';
import { recordRefUpdates } from '../code/ref-updates.js';
import { findRepoById } from '../repos/repos.js';
import type { RepoRow } from '../repos/repo-row.js';
import { findUsersByIds } from '../users/users.js';
import { connectRemote, safeMessage } from './remote-access.js';
import { endLease, leaseEnded, syncEnded, leaseFree, lockLeased, takeLease } from './sync-lease.js';

interface MirrorRow {
  repo_id: number;
  interval_seconds: number;
  enable_prune: boolean;
  remote_address: string;
  credentials: string | null;
  synced_refs: Record<string, string>;
}

const nextUpdate = `CASE WHEN interval_seconds = 0 THEN NULL ELSE now() + make_interval(secs => interval_seconds) END`;

/** POST /mirror-sync: a sync is queued (one at most per mirror); a repository that is not a pull mirror is a 400. */
export async function requestMirrorSync(tx: Tx, repo: RepoRow): Promise<void> {
  const [mirror] = repo.is_mirror ? await tx.query('SELECT repo_id FROM mirror WHERE repo_id = $1', [repo.id]) : [];
  if (!mirror) throw badRequest('Repository is not a mirror');
  await enqueue(tx, 'mirror-sync', { repoId: repo.id });
}

/** The ref changes between what the last sync recorded and what git holds now. */
function diffRefs(before: Record<string, string>, after: Map<string, string>, zero: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const [ref, newSha] of after) if (before[ref] !== newSha) updates.push({ ref, oldSha: before[ref] ?? zero, newSha });
  for (const [ref, oldSha] of Object.entries(before)) if (!after.has(ref)) updates.push({ ref, oldSha, newSha: zero });
  return updates;
}

/**
 * The `mirror-sync` job: fetches the source (with --prune when enable_prune) under the mirror's lease
 * (sync-lease.ts: no transaction is open during the fetch), then records the ref changes as a push by the owner
 * would be recorded (`recordRefUpdates`: branch rows, tag releases, push events, push mirrors on commit) and sets
 * mirror_updated. Changes are computed against the refs the last committed sync recorded, so a fetch whose
 * recording was lost is recorded by the next sync. A failed fetch is recorded as the mirror's last error; its
 * next scheduled sync tries again. A sync asked for while another ran follows it.
 */
export async function syncPullMirror(deps: Store & Services, repoId: number, workerId: number | null): Promise<'done' | 'skipped'> {
  const taken = await takeLease<MirrorRow>(deps.db, 'mirror', repoId, workerId);
  if (!taken) return 'skipped';
  const { lease, row: mirror } = taken;
  const started = performance.now();
  try {
    const repo = await findRepoById(deps.db, repoId);
    if (!repo || !repo.is_mirror || repo.status !== 0) {
      await endLease(deps.db, lease);
      return 'skipped';
    }
    const repoGit = deps.git.open(repo);
    let failure: string | null = null;
    let secret: string | undefined;
    try {
      const remote = await connectRemote(deps.config, mirror.remote_address, mirror.credentials);
      secret = remote.credentials?.password;
      // `[git.timeout] MIRROR`: a silent or crawling source is killed and the failure recorded
      await repoGit.fetchMirror(remote, mirror.enable_prune, deps.config.gitTimeout.mirror * 1000);
    } catch (error) {
      failure = safeMessage(error, [secret]);
      deps.log.warn({ repo: `${repo.owner_name}/${repo.name}`, reason: failure }, 'mirror sync failed');
    }
    const refs = failure === null ? await repoGit.readMirrorRefs() : null;
    return await inTx(deps, async (tx) => {
      const leased = await lockLeased<MirrorRow>(tx, lease);
      if (!leased) return 'skipped';
      if (refs) {
        const updates = diffRefs(leased.synced_refs, refs, zeroOid(repoGit.format));
        const owner = updates.length > 0 ? (await findUsersByIds(tx, [repo.owner_id])).get(repo.owner_id) : undefined;
        if (owner) await recordRefUpdates(tx, repoGit, repo, owner, updates, { mirrorSync: true });
        await tx.query(
          `UPDATE mirror SET synced_refs = $2, updated = now(), last_error = '', next_update = ${nextUpdate}, ${syncEnded('$3', false)}, ${leaseEnded}
           WHERE repo_id = $1`,
          [repoId, Object.fromEntries(refs), (performance.now() - started) / 1000],
        );
      } else {
        await tx.query(
          `UPDATE mirror SET last_error = $2, next_update = ${nextUpdate}, ${syncEnded('$3', true)}, ${leaseEnded} WHERE repo_id = $1`,
          [repoId, failure, (performance.now() - started) / 1000],
        );
      }
      if (leased.rerun) await enqueue(tx, 'mirror-sync', { repoId });
      return 'done';
    });
  } catch (error) {
    await endLease(deps.db, lease).catch(() => undefined);
    throw error;
  }
}

/**
 * The clock's work (the `update-mirrors` job): pull mirrors and push mirrors whose next update is due get a job,
 * and their next update moves on by as long as such a job may live, so they are not enqueued again each tick
 * while it waits or runs; a sync that finishes sets the real next update, one that died leaves the mirror due
 * again after that. Mirrors being synced right now (leased) are left for their sync to reschedule.
 */
export async function enqueueDueMirrors(tx: Tx): Promise<{ pull: number; push: number }> {
  const pulls = await tx.query<{ repo_id: number }>(
    `WITH due AS (
       SELECT m.repo_id FROM mirror m JOIN repository r ON r.id = m.repo_id
       WHERE m.next_update <= now() AND m.interval_seconds > 0 AND r.status = 0 AND r.is_mirror AND ${leaseFree('m')}
       ORDER BY m.next_update LIMIT 500 FOR UPDATE OF m SKIP LOCKED)
     UPDATE mirror SET next_update = now() + make_interval(secs => $1) FROM due WHERE mirror.repo_id = due.repo_id RETURNING mirror.repo_id`,
    [mirrorJobExpirySeconds],
  );
  for (const { repo_id } of pulls) await enqueue(tx, 'mirror-sync', { repoId: repo_id });
  const pushes = await tx.query<{ id: number }>(
    `WITH due AS (
       SELECT id FROM push_mirror p WHERE next_update <= now() AND interval_seconds > 0 AND ${leaseFree('p')}
       ORDER BY next_update LIMIT 500 FOR UPDATE SKIP LOCKED)
     UPDATE push_mirror p SET next_update = now() + make_interval(secs => $1) FROM due WHERE p.id = due.id RETURNING p.id`,
    [mirrorJobExpirySeconds],
  );
  for (const { id } of pushes) await enqueue(tx, 'push-mirror', { pushMirrorId: id });
  return { pull: pulls.length, push: pushes.length };
}
