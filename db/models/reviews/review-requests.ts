import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { accessModeOf, grantedAccessCondition, unitModeOf } from '../access.js';
import { issueFacts } from '../issues/issue-facts.js';
import { commentType, type IssueRow } from '../issues/issue-row.js';
import type { TeamView } from '../orgs/teams.js';
import type { PullRow } from '../pulls/pull-row.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import { userTypes, type UserRow } from '../users/user-row.js';
import { baseBranchRule, isOfficialReviewer, isOfficialReviewerTeam } from './official.js';
import { reviewTypes, type ReviewRow } from './review-row.js';

const closedMessage = 'cannot add or remove review requests on a closed pull request';

/**
 * Gitea's CanDoerChangeReviewRequests: the pull request's poster, the repository's owner, its collaborators and
 * the members of the organization's teams that include it.
 */
async function mayChangeRequests(db: Queryable, repo: RepoRow, issue: IssueRow, doer: UserRow): Promise<boolean> {
  if (repo.is_archived) return false;
  if (doer.id === issue.poster_id || doer.id === repo.owner_id) return true;
  const [row] = await db.query<{ granted: boolean }>(`SELECT ${grantedAccessCondition('r', '$2')} AS granted FROM repository r WHERE r.id = $1`, [repo.id, doer.id]);
  return Boolean(row?.granted);
}

/** Gitea's GetReviewByIssueIDAndUserID: the user's latest verdict or request. */
async function latestVerdictOrRequest(db: Queryable, issueId: number, userId: number): Promise<ReviewRow | null> {
  const [row] = await db.query<ReviewRow>(
    'SELECT * FROM review WHERE issue_id = $1 AND reviewer_id = $2 AND type IN ($3, $4, $5) AND original_author_id = 0 ORDER BY id DESC LIMIT 1',
    [issueId, userId, reviewTypes.approve, reviewTypes.reject, reviewTypes.request],
  );
  return row ?? null;
}

/** Gitea's isValidReviewRequest (422 with its reasons). */
async function assertValidUserRequest(db: Queryable, repo: RepoRow, issue: IssueRow, doer: UserRow, reviewer: UserRow, isAdd: boolean): Promise<void> {
  if (reviewer.type === userTypes.organization) throw invalid("Organization can't be added as reviewer");
  const last = await latestVerdictOrRequest(db, issue.id, reviewer.id);
  const may = await mayChangeRequests(db, repo, issue, doer);
  if (isAdd) {
    const readMode = await unitModeOf(db, reviewer, repo, 'repo.pulls', await accessModeOf(db, reviewer, repo));
    if (readMode < accessModes.read) throw invalid("Reviewer can't read");
    if (reviewer.id === issue.poster_id && issue.original_author_id === 0) throw invalid("poster of pr can't be reviewer");
    if (may) return;
    if (doer.id === issue.poster_id && issue.original_author_id === 0 && last && last.type !== reviewTypes.request) return;
    throw invalid("Doer can't choose reviewer");
  }
  if (may) return;
  if (last && last.type === reviewTypes.request && last.reviewer_id === doer.id) return;
  throw invalid("Doer can't remove reviewer");
}

async function requestComment(tx: Tx, issue: IssueRow, doer: UserRow, target: { userId?: number; teamId?: number }, removed: boolean, reviewId: number | null) {
  const [comment] = await tx.query<{ id: number }>(
    `INSERT INTO comment (type, poster_id, issue_id, assignee_id, assignee_team_id, removed_assignee, review_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [commentType.review_request, doer.id, issue.id, target.userId ?? null, target.teamId ?? null, removed, reviewId],
  );
  return comment.id;
}

/**
 * Gitea's ReviewRequest for one user: adding makes a review request (official when the user's review would count, and
 * then the user's earlier reviews stop counting); a user already asked is skipped (null). Removing deletes the request
 * and lets the user's latest verdict count again. Each change leaves a `review_request` timeline entry.
 */
export async function changeUserReviewRequest(
  tx: Tx, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, reviewer: UserRow, isAdd: boolean,
): Promise<ReviewRow | null> {
  await assertValidUserRequest(tx, repo, issue, doer, reviewer, isAdd);
  await tx.query('SELECT 1 FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  const last = await latestVerdictOrRequest(tx, issue.id, reviewer.id);
  const official = await isOfficialReviewer(tx, repo, await baseBranchRule(tx, pull), reviewer);
  if (isAdd) {
    if (last?.type === reviewTypes.request) return null;
    if (last && (issue.is_closed || pull.has_merged)) throw forbidden(closedMessage);
    if (official) await tx.query('UPDATE review SET official = false WHERE issue_id = $1 AND reviewer_id = $2', [issue.id, reviewer.id]);
    const [review] = await tx.query<ReviewRow>(
      'INSERT INTO review (type, reviewer_id, issue_id, official) VALUES ($1, $2, $3, $4) RETURNING *',
      [reviewTypes.request, reviewer.id, issue.id, official],
    );
    const commentId = await requestComment(tx, issue, doer, { userId: reviewer.id }, false, review.id);
    await emit(tx, {
      kind: 'pull_review.requested', repoId: repo.id, doerId: doer.id,
      payload: { ...issueFacts(issue), reviewer_id: reviewer.id, team_id: null, comment_id: commentId },
    });
    return review;
  }
  if (last?.type !== reviewTypes.request) return null;
  await tx.query('DELETE FROM review WHERE id = $1', [last.id]);
  if (official) {
    await tx.query(
      `UPDATE review SET official = true WHERE id = (
         SELECT id FROM review WHERE issue_id = $1 AND reviewer_id = $2 AND type IN ($3, $4, $5) ORDER BY id DESC LIMIT 1)`,
      [issue.id, reviewer.id, reviewTypes.approve, reviewTypes.reject, reviewTypes.request],
    );
  }
  const commentId = await requestComment(tx, issue, doer, { userId: reviewer.id }, true, null);
  await emit(tx, {
    kind: 'pull_review.request_removed', repoId: repo.id, doerId: doer.id,
    payload: { ...issueFacts(issue), reviewer_id: reviewer.id, team_id: null, comment_id: commentId },
  });
  return null;
}

/**
 * Gitea's TeamReviewRequest: a team of the owning organization (that can read a private repository) is asked, once;
 * its request is official when the team's reviews count, or when the doer's do.
 */
export async function changeTeamReviewRequest(
  tx: Tx, repo: RepoRow, issue: IssueRow, pull: PullRow, doer: UserRow, team: TeamView, isAdd: boolean,
): Promise<ReviewRow | null> {
  const may = await mayChangeRequests(tx, repo, issue, doer);
  if (isAdd && repo.is_private) {
    const rows = await tx.query('SELECT 1 FROM team WHERE id = $1 AND (includes_all_repositories OR EXISTS (SELECT 1 FROM team_repo WHERE team_id = $1 AND repo_id = $2))', [team.id, repo.id]);
    if (rows.length === 0) throw invalid("Reviewing team can't read repo");
  }
  if (!may) throw invalid(isAdd ? "Doer can't choose reviewer" : "Doer can't remove reviewer");
  await tx.query('SELECT 1 FROM issue WHERE id = $1 FOR UPDATE', [issue.id]);
  const [existing] = await tx.query<ReviewRow>('SELECT * FROM review WHERE issue_id = $1 AND reviewer_team_id = $2 ORDER BY id DESC LIMIT 1', [issue.id, team.id]);
  const rule = await baseBranchRule(tx, pull);
  if (isAdd) {
    if (existing) return null;
    const official = isOfficialReviewerTeam(rule, team) || (await isOfficialReviewer(tx, repo, rule, doer));
    const [review] = await tx.query<ReviewRow>(
      'INSERT INTO review (type, reviewer_team_id, issue_id, official) VALUES ($1, $2, $3, $4) RETURNING *',
      [reviewTypes.request, team.id, issue.id, official],
    );
    const commentId = await requestComment(tx, issue, doer, { teamId: team.id }, false, review.id);
    // Gitea notifies every member but the poster as a requested reviewer; a team without such members, nobody
    const members = await tx.query<{ uid: number }>('SELECT uid FROM team_user WHERE team_id = $1 AND uid <> $2 ORDER BY uid', [team.id, issue.poster_id ?? 0]);
    for (const reviewerId of members.length ? members.map((m) => m.uid) : [null]) {
      await emit(tx, {
        kind: 'pull_review.requested', repoId: repo.id, doerId: doer.id,
        payload: { ...issueFacts(issue), reviewer_id: reviewerId, team_id: team.id, comment_id: commentId },
      });
    }
    return review;
  }
  if (!existing) return null;
  await tx.query('DELETE FROM review WHERE id = $1', [existing.id]);
  const commentId = await requestComment(tx, issue, doer, { teamId: team.id }, true, null);
  await emit(tx, {
    kind: 'pull_review.request_removed', repoId: repo.id, doerId: doer.id,
    payload: { ...issueFacts(issue), reviewer_id: null, team_id: team.id, comment_id: commentId },
  });
  return null;
}
