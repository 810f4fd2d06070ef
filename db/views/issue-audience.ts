import type { Queryable } from '../data-source.js';
import { unitModeOf, accessModeOf } from '../models/access.js';
import { commentType, type IssueRow } from '../models/issues/issue-row.js';
import { accessModes, type RepoRow } from '../models/repos/repo-row.js';
import { watchModes } from '../models/repos/watches.js';
import { toUserRow, type UserRow } from '../models/users/user-row.js';

export type MailPreference = 'enabled' | 'onmention' | 'disabled' | 'andyourown';

/** A user an issue event may reach, with what mail they accept and whether they were mentioned. */
export interface AudienceMember {
  user: UserRow;
  mailPreference: MailPreference;
  mentioned: boolean;
}

/**
 * Who follows an issue or pull request (Gitea's notification and mail receivers): its poster, assignees,
 * participants (commenters and reviewers), mentioned users, the repository's watchers and the issue's subscribers,
 * less those who unsubscribed from the issue unless mentioned (Gitea's CreateOrUpdateIssueNotifications), each only
 * while they may read the issues (or pulls) unit; never the doer. With `only`, just that user under the same checks.
 */
export async function loadIssueAudience(db: Queryable, repo: RepoRow, issue: IssueRow, doerId: number | null, only?: number): Promise<AudienceMember[]> {
  const rows = await db.query<Record<string, unknown> & { mentioned: boolean; email_notifications_preference: MailPreference }>(
    `WITH candidates AS (
       SELECT $3::bigint AS id WHERE $3::bigint IS NOT NULL
       UNION SELECT poster_id FROM issue WHERE id = $1 AND poster_id IS NOT NULL AND $3::bigint IS NULL
       UNION SELECT assignee_id FROM issue_assignees WHERE issue_id = $1 AND $3::bigint IS NULL
       UNION SELECT poster_id FROM comment WHERE issue_id = $1 AND poster_id IS NOT NULL AND type = ANY($4::int[]) AND $3::bigint IS NULL
       UNION SELECT user_id FROM issue_mention WHERE issue_id = $1 AND $3::bigint IS NULL
       UNION SELECT user_id FROM watch WHERE repo_id = $2 AND mode = ANY($5::smallint[]) AND $3::bigint IS NULL
       UNION SELECT user_id FROM issue_watch WHERE issue_id = $1 AND is_watching AND $3::bigint IS NULL
     )
     SELECT u.*, EXISTS (SELECT 1 FROM issue_mention m WHERE m.issue_id = $1 AND m.user_id = u.id) AS mentioned
     FROM "user" u JOIN candidates c ON c.id = u.id
     WHERE u.type = 0 AND u.is_active AND NOT u.prohibit_login AND u.id IS DISTINCT FROM $6::bigint
       AND (NOT EXISTS (SELECT 1 FROM issue_watch w WHERE w.issue_id = $1 AND w.user_id = u.id AND NOT w.is_watching)
         OR EXISTS (SELECT 1 FROM issue_mention m WHERE m.issue_id = $1 AND m.user_id = u.id))
     ORDER BY u.id`,
    [issue.id, repo.id, only ?? null, [commentType.comment, commentType.code, commentType.review], [watchModes.normal, watchModes.auto], doerId],
  );
  const unit = issue.is_pull ? 'repo.pulls' : 'repo.issues';
  const members: AudienceMember[] = [];
  for (const { mentioned, email_notifications_preference, ...raw } of rows) {
    const user = toUserRow(raw);
    const repoMode = await accessModeOf(db, user, repo);
    if ((await unitModeOf(db, user, repo, unit, repoMode)) < accessModes.read) continue;
    members.push({ user, mailPreference: email_notifications_preference, mentioned });
  }
  return members;
}
