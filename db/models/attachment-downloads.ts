import type { Queryable } from '../data-source.js';
import { HttpError } from '../errors.js';
import type { Scope } from '../scopes.js';
import { accessModeOf, unitModeOf } from './access.js';
import type { UnitKey } from './orgs/teams.js';
import { findAttachmentByUuid, type AttachmentRow } from './releases/attachments.js';
import { getReleaseByTag, getLatestRelease } from './releases/releases.js';
import { findRepoById } from './repos/repos.js';
import { accessModes, type RepoRow } from './repos/repo-row.js';
import type { UserRow } from './users/user-row.js';

/** What an attachment hangs on decides who may download it (Gitea's LinkedRepository): a repository and one of its units. */
export interface AttachmentLink {
  repo: RepoRow;
  unit: UnitKey;
  /** The token scope a token caller needs. */
  scope: Scope;
  /** Visible only to writers of the unit (a draft release's assets). */
  writersOnly: boolean;
}

/**
 * The link of an attachment row, by what it is attached to: `null` when that thing is gone or of a kind this
 * instance does not know (never downloadable). A release's asset belongs to the releases unit; an issue's or a
 * comment's file to the issues unit, or the pull requests unit when the issue is a pull request.
 */
async function linkOf(db: Queryable, row: AttachmentRow, repo: RepoRow): Promise<AttachmentLink | null> {
  if (row.release_id !== null) {
    const [release] = await db.query<{ is_draft: boolean }>('SELECT is_draft FROM release WHERE id = $1 AND repo_id = $2', [row.release_id, repo.id]);
    return release ? { repo, unit: 'repo.releases', scope: 'read:repository', writersOnly: release.is_draft } : null;
  }
  if (row.issue_id !== null || row.comment_id !== null) {
    const [issue] = await db.query<{ is_pull: boolean }>(
      `SELECT i.is_pull FROM issue i WHERE i.repo_id = $1
         AND i.id = COALESCE($2::bigint, (SELECT c.issue_id FROM comment c WHERE c.id = $3::bigint))`,
      [repo.id, row.issue_id, row.comment_id],
    );
    return issue ? { repo, unit: issue.is_pull ? 'repo.pulls' : 'repo.issues', scope: 'read:issue', writersOnly: false } : null;
  }
  return null;
}

/** A file the caller may download, with the scope a token needs for it. */
export interface Downloadable {
  attachment: AttachmentRow;
  /** null for a file not yet linked to a repository (its uploader's alone). */
  scope: Scope | null;
}

/**
 * The attachment of `uuid` if `user` may download it: whoever may read the unit it belongs to (its writers for
 * hidden ones such as a draft's assets); a file not yet linked to a repository only by its uploader. Missing and
 * refused are the same `null`, so a caller cannot learn that a file exists.
 */
export async function findDownloadableAttachment(db: Queryable, user: UserRow | null, uuid: string): Promise<Downloadable | null> {
  const attachment = await findAttachmentByUuid(db, uuid);
  if (!attachment) return null;
  if (attachment.repo_id === null) return user && user.id === attachment.uploader_id ? { attachment, scope: null } : null;
  const repo = await findRepoById(db, attachment.repo_id);
  if (!repo) return null;
  const link = await linkOf(db, attachment, repo);
  if (!link) return null;
  const repoMode = await accessModeOf(db, user, repo);
  if (repoMode < accessModes.read) return null;
  const mode = await unitModeOf(db, user, repo, link.unit, repoMode);
  if (mode < (link.writersOnly ? accessModes.write : accessModes.read)) return null;
  return { attachment, scope: link.scope };
}

/**
 * The asset `name` of the release tagged `tag` (Gitea's RedirectDownload): drafts count only for writers of releases,
 * and `latest` names the latest release when no release has that tag. The caller has read the releases unit already.
 */
export async function findReleaseAssetByName(db: Queryable, repo: RepoRow, tag: string, name: string, includeDrafts: boolean): Promise<AttachmentRow | null> {
  const release = (await orNull(getReleaseByTag(db, repo.id, tag, includeDrafts)))
    ?? (tag === 'latest' ? await orNull(getLatestRelease(db, repo.id)) : null);
  if (!release) return null;
  const [row] = await db.query<AttachmentRow>('SELECT * FROM attachment WHERE release_id = $1 AND name = $2 ORDER BY id LIMIT 1', [release.id, name]);
  return row ?? null;
}

async function orNull<T>(found: Promise<T>): Promise<T | null> {
  try {
    return await found;
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  }
}
