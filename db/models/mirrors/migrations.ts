import type { Queryable, Store, Tx } from '../../data-source.js';
import { inTx } from '../../data-source.js';
import { forbidden, invalid } from '../../errors.js';
import { emit, withoutEvents } from '../../events/emit.js';
import { enqueue } from '../../../jobs/queue.js';
import { checkRemoteTarget, migrationPolicy, parseRemoteAddress, sanitizeAddress, type RemoteCredentials } from '../../net/outbound-targets.js';
import type { Services } from '../../services.js';
import { syncAllBranches } from '../code/branch-rows.js';
import { syncAllTags } from '../code/push-sync.js';
import { findOrgByName, isOrgMember, orgPermissionsOf } from '../orgs/orgs.js';
import { parseDuration } from '../repos/repo-edit.js';
import { createRepository, deleteRepository, findRepoById, type RepoContext } from '../repos/repos.js';
import type { RepoRow } from '../repos/repo-row.js';
import { userTypes, type UserRow } from '../users/user-row.js';
import { findUserByName, findUsersByIds } from '../users/users.js';
import { connectRemote, safeMessage, sealCredentials } from './remote-access.js';
import { importSourceData, readSourceData, type PullToImport, type SourcePull, type SourceService } from './source-api.js';
import { readPullFacts } from './pull-import.js';
import type { RemoteAccess } from '../../git/remote.js';
import type { GitRepo } from '../../git/repo.js';
import { wikiName } from '../../git/store.js';

/** Gitea's MigrateRepoOptions, as the route has checked its types. */
export interface MigrateInput {
  clone_addr: string;
  repo_name: string;
  repo_owner?: string;
  uid?: number;
  service?: string;
  auth_username?: string;
  auth_password?: string;
  auth_token?: string;
  mirror?: boolean;
  mirror_interval?: string;
  private?: boolean;
  description?: string;
  wiki?: boolean;
  issues?: boolean;
  labels?: boolean;
  milestones?: boolean;
  releases?: boolean;
  pull_requests?: boolean;
  lfs?: boolean;
  lfs_endpoint?: string;
}

/** A row of `migration_task` (Gitea's task table, type migrate). */
interface MigrationTaskRow {
  id: number;
  doer_id: number;
  owner_id: number;
  repo_id: number | null;
  repo_name: string;
  clone_addr: string;
  options: {
    mirror: boolean; interval_seconds: number; service: string; labels?: boolean; releases?: boolean; milestones?: boolean; issues?: boolean;
    pull_requests?: boolean; wiki?: boolean;
  };
  credentials: string | null;
  status: 'queued' | 'running' | 'finished' | 'failed';
  message: string;
}

/** Sources whose API is Gitea's v1 API (Gogs' is its ancestor). */
const apiServices = new Set<string>(['gitea', 'forgejo', 'gogs'] satisfies SourceService[]);
const isApiService = (service: string): service is SourceService => apiServices.has(service);

/** Each git command of a migration, and the whole read of the source's API, ends within `[git.timeout] MIGRATE`. */
const cloneTimeoutMs = (config: Services['config']): number => config.gitTimeout.migrate * 1000;

/**
 * The new repository's owner: repo_owner, else uid, else the caller (422 for a name that does not exist). Someone
 * who is not an administrator migrates into their own account or an organization they may create repositories in.
 */
export async function resolveMigrationOwner(db: Queryable, doer: UserRow, input: MigrateInput): Promise<UserRow> {
  let owner: UserRow | null = doer;
  if (input.repo_owner) owner = await findUserByName(db, input.repo_owner);
  else if (input.uid) owner = (await findUsersByIds(db, [input.uid])).get(input.uid) ?? null;
  if (!owner) throw invalid(`user redirect does not exist [name: ${input.repo_owner ?? input.uid}]`);
  if (doer.is_admin || owner.id === doer.id) return owner;
  if (owner.type !== userTypes.organization) throw forbidden('Given user is not an organization.');
  const org = await findOrgByName(db, owner.name);
  if (!org || !(await isOrgMember(db, org.id, doer.id)) || !(await orgPermissionsOf(db, org, doer)).canCreateRepository) {
    throw forbidden('Given user is not allowed to create repository in organization.');
  }
  return owner;
}

/** The credentials a migration uses: explicit ones over those in the address; a token is a password for `oauth2`. */
function credentialsOf(input: MigrateInput, fromAddress: RemoteCredentials | null): RemoteCredentials | null {
  if (input.auth_token) return { username: input.auth_username || 'oauth2', password: input.auth_token };
  return fromAddress;
}

/** A pull mirror's interval: the default when not given, Go duration syntax, 0 (no schedule) or at least MIN_INTERVAL. */
export function mirrorIntervalSeconds(config: Services['config'], text: string | undefined): number {
  const seconds = parseDuration(text || config.mirror.defaultInterval);
  const minimum = parseDuration(config.mirror.minInterval);
  if (seconds < 0 || (seconds !== 0 && seconds < minimum)) throw invalid(`invalid mirror interval: ${text} is below minimum interval: ${minimum}s`);
  return seconds;
}

/**
 * Gitea's repoMigrate, asynchronous: checks the source (allowed hosts, local paths for administrators), creates the
 * repository in its being-migrated state (with its mirror settings when `mirror`), records the task with the
 * credentials sealed, and enqueues the clone. Stored and returned addresses carry no credentials.
 */
export async function startMigration(tx: Tx, ctx: RepoContext & Pick<Services, 'config'>, doer: UserRow, owner: UserRow, input: MigrateInput): Promise<RepoRow> {
  const { target, credentials } = parseRemoteAddress(input.clone_addr, input.auth_username, input.auth_password);
  await checkRemoteTarget(target, migrationPolicy(ctx.config), doer.is_admin);
  const mirror = input.mirror ?? false;
  const intervalSeconds = mirror ? mirrorIntervalSeconds(ctx.config, input.mirror_interval) : 0;
  const address = target.kind === 'http' ? target.url : target.path;
  const sealed = sealCredentials(ctx.config, credentialsOf(input, credentials));
  const created = await createRepository(tx, ctx, owner, doer, {
    name: input.repo_name,
    description: input.description,
    private: input.private,
    is_mirror: mirror,
    original_url: sanitizeAddress(input.clone_addr),
  });
  const [repo] = await tx.query<RepoRow>('UPDATE repository SET status = 1, original_service_type = $2 WHERE id = $1 RETURNING *', [created.id, input.service ?? 'git']);
  if (mirror) {
    await tx.query(
      `INSERT INTO mirror (repo_id, interval_seconds, enable_prune, remote_address, credentials) VALUES ($1, $2, true, $3, $4)`,
      [repo.id, intervalSeconds, address, sealed],
    );
  }
  const [task] = await tx.query<{ id: number }>(
    `INSERT INTO migration_task (doer_id, owner_id, repo_id, repo_name, clone_addr, options, credentials)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [doer.id, owner.id, repo.id, repo.name, address, {
      mirror, interval_seconds: intervalSeconds, service: input.service ?? 'git', wiki: input.wiki ?? false,
      // Gitea reads no issue data for mirrors; Hearth reads labels, milestones, issues, pull requests and releases of
      // Gitea-speaking sources.
      ...Object.fromEntries((['labels', 'milestones', 'issues', 'pull_requests', 'releases'] as const).map((item) => [
        item, !mirror && isApiService(input.service ?? '') && (input[item] ?? false),
      ])),
      // Gogs' API has no pull requests (nor does Gitea read any from it)
      ...(input.service === 'gogs' ? { pull_requests: false } : {}),
    }, sealed],
  );
  await enqueue(tx, 'migrate', { taskId: task.id });
  return repo;
}

/** The branch the new repository's HEAD names: the source's, else the current default, else the first branch. */
async function settleDefaultBranch(tx: Tx, ctx: Pick<Services, 'git'>, repo: RepoRow, remoteHead: string | null): Promise<string> {
  const names = (await tx.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1 ORDER BY name', [repo.id])).map((r) => r.name);
  const chosen = [remoteHead, repo.default_branch].find((name) => name && names.includes(name)) ?? names[0] ?? repo.default_branch;
  // the repository was made with HEAD on its default branch, and fetching does not move HEAD
  if (chosen !== repo.default_branch) await ctx.git.open(repo).setHead(chosen);
  return chosen;
}

/** The source's wiki beside its clone address: `…/repo(.git)` → `…/repo.wiki.git`. */
function wikiAddressOf(address: string): string {
  if (!/^https?:/i.test(address)) return `${address.replace(/\/+$/, '').replace(/\.git$/i, '')}.wiki.git`;
  const url = new URL(address);
  url.pathname = `${url.pathname.replace(/\/+$/, '').replace(/\.git$/i, '')}.wiki.git`;
  return url.toString();
}

/**
 * Gitea's migration of the wiki (`wiki`): the source's wiki copied into the new repository's, with the same
 * credentials and pinned address. A source without a wiki (or one git cannot read) leaves none, and the
 * migration goes on, as in Gitea.
 */
async function cloneWiki(deps: Store & Services, repo: RepoRow, remote: RemoteAccess): Promise<void> {
  try {
    await deps.git.initWiki(repo);
    await deps.git.openWiki(repo).fetchMirror({ ...remote, url: wikiAddressOf(remote.url) }, true, cloneTimeoutMs(deps.config));
  } catch (error) {
    deps.log.warn({ repo: `${repo.owner_name}/${repo.name}`, reason: safeMessage(error, [remote.credentials?.password]) }, 'the wiki of a migration source could not be copied');
    await deps.git.remove(repo.owner_name, wikiName(repo.name));
  }
}

/**
 * Fetches every branch and tag of the source (and its pull request heads with `pullHeads`) and answers the branch
 * its HEAD names. The two run side by side (git fetch does not keep the remote's HEAD, and `ls-remote` is its own
 * round trip); both end before a failure is thrown.
 */
async function fetchWithHead(repoGit: GitRepo, remote: RemoteAccess, pullHeads: boolean, timeoutMs: number): Promise<string | null> {
  const [head, fetched] = await Promise.allSettled([
    repoGit.readRemoteHeadBranch(remote, timeoutMs),
    repoGit.fetchMirror(remote, true, timeoutMs, pullHeads),
  ]);
  if (fetched.status === 'rejected') throw fetched.reason;
  if (head.status === 'rejected') throw head.reason;
  return head.value;
}

/** The source's pull requests with their git facts here; one whose head commit did not come is left out, and logged. */
async function readPullsToImport(deps: Services, repo: RepoRow, repoGit: GitRepo, pulls: SourcePull[]): Promise<PullToImport[]> {
  const ready: PullToImport[] = [];
  for (const source of pulls) {
    const facts = await readPullFacts(repoGit, source.number, source, source.reviews);
    if (facts) ready.push({ source, facts });
    else deps.log.warn({ repo: `${repo.owner_name}/${repo.name}`, pull: source.number }, 'a pull request of the migration source has no head commit here; left out');
  }
  return ready;
}

/**
 * The `migrate` job: clones the source into the repository made for it, records branches and tag releases, and
 * makes the repository ready (a mirror's first sync is then scheduled). What the source could not give and the
 * migration did without (reactions, reviews) is logged and kept as the finished task's message. A migration that
 * fails removes the repository (row and directory) and records why on its task. A task already finished or failed is
 * skipped.
 */
export async function runMigration(deps: Store & Services, taskId: number): Promise<'done' | 'skipped'> {
  const [task] = await deps.db.query<MigrationTaskRow>('SELECT * FROM migration_task WHERE id = $1', [taskId]);
  if (!task || task.status === 'finished' || task.status === 'failed') return 'skipped';
  const repo = task.repo_id ? await findRepoById(deps.db, task.repo_id) : null;
  if (!repo) {
    await deps.db.query(
      `UPDATE migration_task SET status = 'failed', message = 'the repository was deleted during its migration', credentials = NULL, ended = now() WHERE id = $1`,
      [taskId],
    );
    return 'done';
  }
  await deps.db.query(`UPDATE migration_task SET status = 'running', started = now() WHERE id = $1`, [taskId]);
  let secret: string | undefined;
  try {
    const remote = await connectRemote(deps.config, task.clone_addr, task.credentials);
    secret = remote.credentials?.password;
    const repoGit = deps.git.open(repo);
    const { options } = task;
    const remoteHead = await fetchWithHead(repoGit, remote, options.pull_requests ?? false, cloneTimeoutMs(deps.config));
    const refs = await repoGit.readMirrorRefs();
    if (options.wiki) await cloneWiki(deps, repo, remote);
    const sourceData = isApiService(options.service)
      ? await readSourceData(remote, options.service, {
        labels: options.labels ?? false, milestones: options.milestones ?? false, issues: options.issues ?? false,
        pullRequests: options.pull_requests ?? false, releases: options.releases ?? false,
      }, cloneTimeoutMs(deps.config))
      : null;
    const pulls = await readPullsToImport(deps, repo, repoGit, sourceData?.pulls ?? []);
    const warnings = (sourceData?.warnings ?? []).map((warning) => safeMessage(new Error(warning), [secret]));
    for (const warning of warnings) deps.log.warn({ task: taskId, repo: `${repo.owner_name}/${repo.name}`, warning }, 'migration goes on without part of the source');
    await inTx(deps, async (tx) => {
      const [locked] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR UPDATE', [repo.id]);
      if (!locked) throw new Error('the repository was deleted during its migration');
      const branches = await syncAllBranches(tx, repoGit, repo.id, task.doer_id);
      if ([...refs.keys()].some((ref) => ref.startsWith('refs/tags/'))) await syncAllTags(tx, repoGit, repo.id, task.doer_id);
      const doer = (await findUsersByIds(tx, [task.doer_id])).get(task.doer_id);
      // what the source's people did is history here: it reaches no webhook, notification or mail, as in Gitea
      if (sourceData && doer) await withoutEvents(tx, () => importSourceData(tx, locked, doer, sourceData, pulls));
      const defaultBranch = await settleDefaultBranch(tx, deps, locked, remoteHead);
      await tx.query('UPDATE repository SET status = 0, is_empty = $2, default_branch = $3, updated = now() WHERE id = $1', [repo.id, branches === 0, defaultBranch]);
      if (task.options.mirror) {
        await tx.query(
          `UPDATE mirror SET synced_refs = $2, updated = now(), last_error = '',
             next_update = CASE WHEN interval_seconds = 0 THEN NULL ELSE now() + make_interval(secs => interval_seconds) END
           WHERE repo_id = $1`,
          [repo.id, Object.fromEntries(refs)],
        );
      }
      await tx.query(`UPDATE migration_task SET status = 'finished', message = $2, credentials = NULL, ended = now() WHERE id = $1`, [taskId, warnings.join('\n')]);
      await emit(tx, { kind: 'repository.migrated', repoId: repo.id, doerId: task.doer_id, payload: { owner_id: repo.owner_id, owner: repo.owner_name, name: repo.name } });
    });
  } catch (error) {
    const message = safeMessage(error, [secret]);
    await inTx(deps, async (tx) => {
      const [current] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR UPDATE', [repo.id]);
      const doer = (await findUsersByIds(tx, [task.doer_id])).get(task.doer_id);
      if (current && doer) await deleteRepository(tx, deps, current, doer);
      await tx.query(
        `UPDATE migration_task SET status = 'failed', message = $2, credentials = NULL, repo_id = NULL, ended = now() WHERE id = $1`,
        [taskId, message],
      );
    });
    deps.log.warn({ task: taskId, repo: `${repo.owner_name}/${repo.name}`, reason: message }, 'migration failed');
  }
  return 'done';
}

/** The last migration task into `owner/name` (for tests and the admin view of failures). */
export async function findMigrationTask(db: Queryable, ownerId: number, repoName: string): Promise<Pick<MigrationTaskRow, 'status' | 'message'> | null> {
  const [row] = await db.query<MigrationTaskRow>(
    'SELECT status, message FROM migration_task WHERE owner_id = $1 AND lower(repo_name) = lower($2) ORDER BY id DESC LIMIT 1',
    [ownerId, repoName],
  );
  return row ?? null;
}
