import { randomBytes } from 'node:crypto';
import type { Queryable, Store, Tx } from '../../data-source.js';
import { inTx } from '../../data-source.js';
import { badRequest, HttpError, notFound } from '../../errors.js';
import { enqueue } from '../../../jobs/queue.js';
import { checkRemoteTarget, migrationPolicy, parseRemoteAddress } from '../../net/outbound-targets.js';
import type { PageWindow } from '../../sql.js';
import { selectPage } from '../../sql.js';
import type { Services } from '../../services.js';
import { parseDuration } from '../repos/repo-edit.js';
import { findRepoById } from '../repos/repos.js';
import type { RepoRow } from '../repos/repo-row.js';
import { connectRemote, safeMessage, sealCredentials } from './remote-access.js';
import { endLease, leaseEnded, syncEnded, lockLeased, takeLease } from './sync-lease.js';

/** A row of `push_mirror`; `credentials` never leaves db/. */
export interface PushMirrorRow {
  id: number;
  repo_id: number;
  remote_name: string;
  remote_address: string;
  credentials: string | null;
  sync_on_commit: boolean;
  interval_seconds: number;
  next_update: Date | null;
  last_update: Date | null;
  last_error: string;
  created: Date;
}

export interface NewPushMirror {
  remote_address: string;
  remote_username?: string;
  remote_password?: string;
  interval?: string;
  sync_on_commit?: boolean;
}

const columns = 'id, repo_id, remote_name, remote_address, credentials, sync_on_commit, interval_seconds, next_update, last_update, last_error, created';

/** Gitea's remote names: `remote_mirror_` and ten random letters and digits. */
function newRemoteName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `remote_mirror_${[...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

/**
 * Gitea's CreatePushMirror: the interval in Go duration syntax (0, or at least MIN_INTERVAL), an http(s) address
 * the outbound policy allows (credentials from the address or the body, sealed), a new remote name. A bad interval,
 * address or protocol is Gitea's 400; a target the policy refuses is checked as a migration source is and answers
 * as one does (422 with the same message; Gitea's 401 "Permission denied" says less).
 */
export async function addPushMirror(tx: Tx, config: Services['config'], repo: RepoRow, doerIsAdmin: boolean, input: NewPushMirror): Promise<PushMirrorRow> {
  let seconds: number;
  try {
    seconds = parseDuration(input.interval ?? '');
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  if (seconds < 0 || (seconds !== 0 && seconds < parseDuration(config.mirror.minInterval))) {
    throw badRequest(`invalid push mirror interval: ${input.interval} is below minimum interval: ${config.mirror.minInterval}`);
  }
  let parsed: ReturnType<typeof parseRemoteAddress>;
  try {
    parsed = parseRemoteAddress(input.remote_address, input.remote_username, input.remote_password);
  } catch (error) {
    throw error instanceof HttpError ? badRequest(error.message) : error;
  }
  if (parsed.target.kind !== 'http') throw badRequest('Invalid mirror protocol');
  await checkRemoteTarget(parsed.target, migrationPolicy(config), doerIsAdmin);
  const [row] = await tx.query<PushMirrorRow>(
    `INSERT INTO push_mirror (repo_id, remote_name, remote_address, credentials, sync_on_commit, interval_seconds, next_update)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 = 0 THEN NULL ELSE now() + make_interval(secs => $6) END) RETURNING ${columns}`,
    [repo.id, newRemoteName(), parsed.target.url, sealCredentials(config, parsed.credentials), input.sync_on_commit ?? false, seconds],
  );
  return row;
}

export async function listPushMirrors(db: Queryable, repoId: number, page: PageWindow): Promise<{ rows: PushMirrorRow[]; total: number }> {
  return selectPage<PushMirrorRow>(db, { select: columns, from: 'push_mirror WHERE repo_id = $1', params: [repoId], orderBy: 'id', page });
}

export async function getPushMirror(db: Queryable, repoId: number, remoteName: string): Promise<PushMirrorRow> {
  const [row] = await db.query<PushMirrorRow>(`SELECT ${columns} FROM push_mirror WHERE repo_id = $1 AND remote_name = $2`, [repoId, remoteName]);
  if (!row) throw notFound();
  return row;
}

/** Deleting a push mirror stops its pushes: a queued job finds no row and is skipped. */
export async function deletePushMirror(tx: Tx, repoId: number, remoteName: string): Promise<void> {
  const deleted = await tx.query('DELETE FROM push_mirror WHERE repo_id = $1 AND remote_name = $2 RETURNING id', [repoId, remoteName]);
  if (deleted.length === 0) throw notFound();
}

/** POST /push_mirrors-sync: a push of every push mirror of the repository is queued. */
export async function requestPushMirrorSync(tx: Tx, repoId: number): Promise<void> {
  const rows = await tx.query<{ id: number }>('SELECT id FROM push_mirror WHERE repo_id = $1 ORDER BY id', [repoId]);
  for (const { id } of rows) await enqueue(tx, 'push-mirror', { pushMirrorId: id });
}

/** The push mirrors with sync_on_commit, pushed after every `push` event of the repository (see actors/reactions.ts). */
export async function commitPushMirrors(db: Queryable, repoId: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>('SELECT id FROM push_mirror WHERE repo_id = $1 AND sync_on_commit ORDER BY id', [repoId]);
  return rows.map((r) => r.id);
}

/**
 * The `push-mirror` job: pushes every branch and tag with --mirror semantics, the target checked again and pinned
 * now, credentials only in git's environment, under the push mirror's lease (sync-lease.ts: no transaction is
 * open during the push, and two pushes to one target never overlap; one asked for meanwhile follows). The
 * outcome is recorded on the mirror (last_update or last_error); a failure is then thrown so pg-boss retries it.
 */
export async function runPushMirror(deps: Store & Services, pushMirrorId: number, workerId: number | null): Promise<'done' | 'skipped'> {
  const started = await inTx(deps, async (tx) => {
    const [found] = await tx.query<{ repo_id: number }>('SELECT repo_id FROM push_mirror WHERE id = $1', [pushMirrorId]);
    const repo = found ? await findRepoById(tx, found.repo_id) : null;
    if (!repo || repo.status !== 0) return null;
    const taken = await takeLease<PushMirrorRow>(tx, 'push_mirror', pushMirrorId, workerId);
    return taken && { repo, ...taken };
  });
  if (!started) return 'skipped';
  const { repo, lease, row: mirror } = started;
  const startedAt = performance.now();
  let failure: string | null = null;
  try {
    let secret: string | undefined;
    try {
      const remote = await connectRemote(deps.config, mirror.remote_address, mirror.credentials);
      secret = remote.credentials?.password;
      // `[git.timeout] MIRROR`, as Gitea's push mirrors take it
      await deps.git.open(repo).pushMirror(remote, deps.config.gitTimeout.mirror * 1000);
    } catch (error) {
      failure = safeMessage(error, [secret]);
      deps.log.warn({ repo: `${repo.owner_name}/${repo.name}`, remote: mirror.remote_name, reason: failure }, 'push mirror failed');
    }
    const next = `CASE WHEN interval_seconds = 0 THEN NULL ELSE now() + make_interval(secs => interval_seconds) END`;
    const recorded = await inTx(deps, async (tx) => {
      const leased = await lockLeased<PushMirrorRow>(tx, lease);
      if (!leased) return false;
      if (failure === null) {
        await tx.query(
          `UPDATE push_mirror SET last_update = now(), last_error = '', next_update = ${next}, ${syncEnded('$2', false)}, ${leaseEnded} WHERE id = $1`,
          [pushMirrorId, (performance.now() - startedAt) / 1000],
        );
      } else {
        await tx.query(
          `UPDATE push_mirror SET last_error = $2, next_update = ${next}, ${syncEnded('$3', true)}, ${leaseEnded} WHERE id = $1`,
          [pushMirrorId, failure, (performance.now() - startedAt) / 1000],
        );
      }
      // after a failure the retry pushes what a push asked for meanwhile would
      if (leased.rerun && failure === null) await enqueue(tx, 'push-mirror', { pushMirrorId });
      return true;
    });
    if (!recorded) return 'skipped';
  } catch (error) {
    await endLease(deps.db, lease).catch(() => undefined);
    throw error;
  }
  if (failure !== null) throw new Error(failure);
  return 'done';
}
