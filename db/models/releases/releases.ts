import type { BlobStore } from '../../blob-store.js';
import type { Queryable, Tx } from '../../data-source.js';
import { rowFromJson, selectPage } from '../../sql.js';
import type { RepoPreload } from '../access.js';
import { conflict, invalid, isUniqueViolation, notFound } from '../../errors.js';
import type { ReleaseEventKind } from '../../events/catalogue.js';
import { emit, emitInStatementSql, eventParam } from '../../events/emit.js';
import { releaseViewOf, releaseViewSql, type ReleaseView, type ReleaseViewColumns } from './release-view-columns.js';
import { zeroOid } from '../../git/objects.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import { recordRefUpdates } from '../code/ref-updates.js';
import { deleteReleaseAttachments } from './attachments.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

/** A row of the `release` table. `is_tag` rows are tags without a release (created by pushes), never shown as releases. */
export interface ReleaseRow {
  id: number;
  repo_id: number;
  publisher_id: number | null;
  tag_name: string;
  lower_tag_name: string;
  target: string;
  title: string;
  sha1: string;
  num_commits: number;
  note: string;
  is_draft: boolean;
  is_prerelease: boolean;
  is_tag: boolean;
  created: Date;
}

/** CreateReleaseOption. */
export interface NewRelease {
  tag_name: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

/** EditReleaseOption: empty strings and absent fields leave the value as it is. */
export type ReleaseEdit = Partial<NewRelease>;

export interface ReleaseContext {
  git: GitStore;
}

export interface ReleaseFilter {
  /** Whether the viewer may see drafts at all (write access). */
  includeDrafts: boolean;
  draft?: boolean;
  prerelease?: boolean;
}

const maxTitleLength = 255;

// ---- reads -------------------------------------------------------------------------------------------

/** A release (not a bare tag) of the repository; a draft is as missing as a deleted one to a viewer without write access. */
export async function getRelease(db: Queryable, repoId: number, id: number, includeDrafts: boolean): Promise<ReleaseRow> {
  const [row] = await db.query<ReleaseRow>('SELECT * FROM release WHERE id = $1 AND repo_id = $2 AND NOT is_tag', [id, repoId]);
  if (!row || (row.is_draft && !includeDrafts)) throw notFound(`release ${id} does not exist`);
  return row;
}

export async function getReleaseByTag(db: Queryable, repoId: number, tag: string, includeDrafts: boolean): Promise<ReleaseRow> {
  const [row] = await db.query<ReleaseRow>(
    'SELECT * FROM release WHERE repo_id = $1 AND lower_tag_name = $2 AND NOT is_tag',
    [repoId, tag.toLowerCase()],
  );
  if (!row || (row.is_draft && !includeDrafts)) throw notFound(`release with tag ${tag} does not exist`);
  return row;
}

/** The newest release that is neither a draft nor a pre-release. */
export async function getLatestRelease(db: Queryable, repoId: number): Promise<ReleaseRow> {
  const [row] = await db.query<ReleaseRow>(
    `SELECT * FROM release WHERE repo_id = $1 AND NOT is_tag AND NOT is_draft AND NOT is_prerelease
     ORDER BY created DESC, id DESC LIMIT 1`,
    [repoId],
  );
  if (!row) throw notFound('the repository has no published release');
  return row;
}

/** Releases, newest first, with the total the filter matches. */
export async function listReleases(
  db: Queryable,
  repoId: number,
  filter: ReleaseFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: ReleaseRow[]; total: number }> {
  const conditions = ['repo_id = $1', 'NOT is_tag'];
  const params: unknown[] = [repoId];
  if (!filter.includeDrafts) conditions.push('NOT is_draft');
  if (filter.draft !== undefined) conditions.push(`is_draft = $${params.push(filter.draft)}`);
  if (filter.prerelease !== undefined) conditions.push(`is_prerelease = $${params.push(filter.prerelease)}`);
  const where = conditions.join(' AND ');
  return selectPage<ReleaseRow>(db, { select: '*', from: `release WHERE ${where}`, params, orderBy: 'created DESC, id DESC', page });
}

// ---- changes -----------------------------------------------------------------------------------------

/**
 * Creates a release. A published release needs its tag: an existing tag is used as it is, a missing one is
 * created at `target_commitish` (the default branch when absent) and removed again if the transaction fails.
 * Drafts create no tag. A tag that a push recorded without a release becomes this release.
 */
export async function createRelease(tx: Tx, ctx: ReleaseContext, repo: RepoRow, doer: UserRow, input: NewRelease): Promise<ReleaseRow> {
  if (repo.is_empty) throw invalid('repo is empty: a release needs at least one commit to tag');
  const repoGit = ctx.git.open(repo);
  const tag = input.tag_name;
  await assertValidTagName(repoGit, tag);
  const [existing] = await tx.query<ReleaseRow>(
    'SELECT * FROM release WHERE repo_id = $1 AND lower_tag_name = $2 FOR UPDATE',
    [repo.id, tag.toLowerCase()],
  );
  if (existing && !existing.is_tag) throw conflict(`release tag already exist [tag_name: ${tag}]`);
  const values = [
    input.name?.slice(0, maxTitleLength) ?? '', input.body ?? '', input.draft ?? false, input.prerelease ?? false, doer.id,
  ];
  let row: ReleaseRow;
  if (existing) {
    [row] = await tx.query<ReleaseRow>(
      `UPDATE release SET title = $2, note = $3, is_draft = $4, is_prerelease = $5, publisher_id = $6, is_tag = false,
         target = COALESCE(NULLIF($7, ''), target)
       WHERE id = $1 RETURNING *`,
      [existing.id, ...values, input.target_commitish ?? ''],
    );
  } else {
    try {
      [row] = await tx.query<ReleaseRow>(
        `INSERT INTO release (repo_id, tag_name, lower_tag_name, target, title, note, is_draft, is_prerelease, publisher_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [repo.id, tag, tag.toLowerCase(), input.target_commitish || repo.default_branch, ...values],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`release tag already exist [tag_name: ${tag}]`);
      throw error;
    }
  }
  if (!row.is_draft) row = (await tagRelease(tx, repoGit, repo, doer, row)).row;
  await adjustReleaseCount(tx, repo.id, counted(row) - counted(existing));
  if (!row.is_draft) await emitRelease(tx, 'release.published', repo, doer, row);
  return row;
}

/** Gitea's edit: non-empty fields replace, booleans apply when given; publishing creates the tag if it is missing. */
export async function editRelease(
  tx: Tx,
  ctx: ReleaseContext,
  repo: RepoRow,
  releaseId: number,
  doer: UserRow,
  edit: ReleaseEdit,
): Promise<ReleaseRow> {
  const before = await lockRelease(tx, repo.id, releaseId);
  const repoGit = ctx.git.open(repo);
  const tag = edit.tag_name || before.tag_name;
  const retagged = tag !== before.tag_name;
  if (retagged) await assertValidTagName(repoGit, tag);
  let row: ReleaseRow;
  try {
    [row] = await tx.query<ReleaseRow>(
      `UPDATE release SET tag_name = $2, lower_tag_name = $3, target = $4, title = $5, note = $6, is_draft = $7, is_prerelease = $8,
         sha1 = CASE WHEN $9 THEN '' ELSE sha1 END, num_commits = CASE WHEN $9 THEN 0 ELSE num_commits END
       WHERE id = $1 RETURNING *`,
      [
        before.id, tag, tag.toLowerCase(), edit.target_commitish || before.target, edit.name?.slice(0, maxTitleLength) || before.title,
        edit.body || before.note, edit.draft ?? before.is_draft, edit.prerelease ?? before.is_prerelease, retagged,
      ],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`release tag already exist [tag_name: ${tag}]`);
    throw error;
  }
  let createdTag = false;
  if (!row.is_draft) ({ row, createdTag } = await tagRelease(tx, repoGit, repo, doer, row));
  await adjustReleaseCount(tx, repo.id, counted(row) - counted(before));
  if (!row.is_draft) await emitRelease(tx, before.is_draft || createdTag ? 'release.published' : 'release.updated', repo, doer, row);
  return row;
}

/** A release (not a bare tag) of the guarded repository `r`, read in the guard's statement; null when there is none. */
export function releasePreload(id: number): RepoPreload<ReleaseRow | null> {
  return {
    sql: '(SELECT row_to_json(x) FROM release x WHERE x.id = $1 AND x.repo_id = r.id AND NOT x.is_tag)',
    values: [id],
    read: (json) => (json ? rowFromJson<ReleaseRow>(json as Record<string, unknown>, ['created']) : null),
    planOnce: true,
  };
}

/**
 * editRelease as one statement with no transaction of its own, for the common edit: a published release that stays
 * published under its tag (title, notes, target, prerelease), answered with its view. `seen` is the row as read
 * without a lock (the route's guard preloads it); the statement changes the row only if it is still published
 * under that tag at that commit, with the tag in git pointing there, so nothing editRelease would do besides the
 * update and its event is left undone. Null when the edit is not such an edit, or the row changed meanwhile: the
 * caller then runs editRelease.
 */
export async function editPublishedRelease(
  db: Queryable, ctx: ReleaseContext, repo: RepoRow, seen: ReleaseRow, doer: UserRow, edit: ReleaseEdit,
): Promise<ReleaseView | null> {
  if (seen.is_draft || seen.is_tag || edit.draft === true || (edit.tag_name && edit.tag_name !== seen.tag_name)) return null;
  if ((await ctx.git.open(repo).resolve(`refs/tags/${seen.tag_name}`)) !== seen.sha1) return null;
  const event = eventParam({ kind: 'release.updated', repoId: repo.id, doerId: doer.id, payload: { release_id: seen.id, tag_name: seen.tag_name } });
  const [row] = await db.query<ReleaseViewColumns>(
    `WITH edited AS (
       UPDATE release SET target = COALESCE(NULLIF($5, ''), target), title = COALESCE(NULLIF($6, ''), title),
         note = COALESCE(NULLIF($7, ''), note), is_prerelease = COALESCE($8, is_prerelease)
        WHERE id = $1 AND repo_id = $2 AND NOT is_tag AND NOT is_draft AND tag_name = $3 AND sha1 = $4
       RETURNING *),
     ${emitInStatementSql('edited', '$9')}
     SELECT ${releaseViewSql('edited')} FROM edited`,
    [
      seen.id, repo.id, seen.tag_name, seen.sha1, edit.target_commitish ?? '', edit.name?.slice(0, maxTitleLength) ?? '', edit.body ?? '',
      edit.prerelease ?? null, event,
    ],
  );
  return row ? releaseViewOf(row) : null;
}

/**
 * Deletes a release but never its tag: when the tag exists in git the row stays as a bare tag (`is_tag`),
 * otherwise (a draft that was never tagged) the row goes. Attachments go with it, their files once committed.
 */
export async function deleteRelease(
  tx: Tx,
  ctx: ReleaseContext & { blobs: BlobStore },
  repo: RepoRow,
  releaseId: number,
  doer: UserRow,
): Promise<void> {
  const before = await lockRelease(tx, repo.id, releaseId);
  await deleteReleaseAttachments(tx, ctx.blobs, before.id);
  const sha = await ctx.git.open(repo).resolve(`refs/tags/${before.tag_name}`);
  if (sha) {
    await tx.query(
      `UPDATE release SET is_tag = true, is_draft = false, is_prerelease = false, sha1 = $2,
         num_commits = CASE WHEN sha1 = $2 THEN num_commits ELSE 0 END
       WHERE id = $1`,
      [before.id, sha],
    );
  } else {
    await tx.query('DELETE FROM release WHERE id = $1', [before.id]);
  }
  await adjustReleaseCount(tx, repo.id, -counted(before));
  if (!before.is_draft) await emitRelease(tx, 'release.deleted', repo, doer, before);
}

// ---- helpers -----------------------------------------------------------------------------------------

async function lockRelease(tx: Tx, repoId: number, id: number): Promise<ReleaseRow> {
  const [row] = await tx.query<ReleaseRow>('SELECT * FROM release WHERE id = $1 AND repo_id = $2 AND NOT is_tag FOR UPDATE', [id, repoId]);
  if (!row) throw notFound(`release ${id} does not exist`);
  return row;
}

/** What `repository.num_releases` counts: published releases. */
function counted(row: ReleaseRow | null | undefined): number {
  return row && !row.is_tag && !row.is_draft ? 1 : 0;
}

async function adjustReleaseCount(tx: Tx, repoId: number, delta: number): Promise<void> {
  if (delta === 0) return;
  await tx.query('UPDATE repository SET num_releases = GREATEST(num_releases + $2, 0) WHERE id = $1', [repoId, delta]);
}

async function emitRelease(tx: Tx, kind: ReleaseEventKind, repo: RepoRow, doer: UserRow, row: ReleaseRow): Promise<void> {
  await emit(tx, { kind, repoId: repo.id, doerId: doer.id, payload: { release_id: row.id, tag_name: row.tag_name }, ...(kind === 'release.deleted' ? { snapshot: { release: row } } : {}) });
}

/**
 * Makes sure a published release's tag exists and records the commit it points at. A tag created here is
 * recorded as a pushed one would be, and deleted again if the transaction does not commit; creating it also
 * dates the release, as publishing does.
 */
async function tagRelease(tx: Tx, repoGit: GitRepo, repo: RepoRow, doer: UserRow, row: ReleaseRow): Promise<{ row: ReleaseRow; createdTag: boolean }> {
  const ref = `refs/tags/${row.tag_name}`;
  let sha = await repoGit.resolve(ref);
  let createdTag = false;
  if (!sha) {
    const target = row.target || repo.default_branch;
    const commit = await resolveTarget(repoGit, target);
    if (!commit) throw notFound(`target "${target}" not found`);
    if (!(await repoGit.updateRef(ref, commit, null))) throw conflict(`tag ${row.tag_name} already exists`);
    tx.onRollback(async () => {
      await repoGit.deleteRef(ref, commit);
    });
    await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: zeroOid(repoGit.format), newSha: commit }]);
    sha = commit;
    createdTag = true;
  }
  if (!createdTag && sha === row.sha1) return { row, createdTag };
  const numCommits = await repoGit.count({ rev: sha });
  const [updated] = await tx.query<ReleaseRow>(
    `UPDATE release SET sha1 = $2, num_commits = $3, created = CASE WHEN $4 THEN now() ELSE created END WHERE id = $1 RETURNING *`,
    [row.id, sha, numCommits, createdTag],
  );
  return { row: updated, createdTag };
}

/** `git check-ref-format`: the authority on what a tag may be called. */
async function assertValidTagName(repoGit: GitRepo, tag: string): Promise<void> {
  if (!tag || tag.startsWith('-') || tag.length > 255) throw invalid(`tag name is invalid: ${tag}`);
  if (!(await repoGit.checkRefFormat(`refs/tags/${tag}`))) throw invalid(`tag name is invalid: ${tag}`);
}

/** A release's target (a branch, tag or commit id) to the commit it names, or null. */
async function resolveTarget(repoGit: GitRepo, rev: string): Promise<string | null> {
  if (!rev || rev.startsWith('-') || /[\x00-\x20]/.test(rev)) return null;
  return repoGit.resolve(rev);
}
