import type { Queryable } from '../data-source.js';
import { assigneesOfIssues } from '../models/issues/issue-assignees.js';
import { labelsOfIssues } from '../models/issues/issue-labels.js';
import type { CommentRow, IssueRow, MilestoneRow } from '../models/issues/issue-row.js';
import { milestonesByIds } from '../models/issues/milestones.js';
import { pullsOfIssues } from '../models/pulls/pulls.js';
import { isWorkInProgress } from '../models/pulls/pull-row.js';
import type { LabelRow } from '../models/orgs/labels.js';
import type { AttachmentRow } from '../models/releases/attachments.js';
import type { RepoRow } from '../models/repos/repo-row.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';

/** The repository fields an issue's JSON names (its URLs and `repository`). */
export type IssueRepo = Pick<RepoRow, 'id' | 'name' | 'owner_name' | 'owner_id'>;

/** What a pull request's issue shows of its pull request (Gitea's PullRequestMeta); the pull request area fills it. */
export interface PullMeta {
  merged: boolean;
  merged_at: Date | null;
  draft: boolean;
}

function pullMetaOf(issue: IssueRow, pull: { has_merged: boolean; merged_at: Date | null } | undefined): PullMeta | null {
  if (!pull) return null;
  return { merged: pull.has_merged, merged_at: pull.merged_at, draft: isWorkInProgress(issue.title) };
}

/** An issue with everything its JSON shows besides the row. */
export interface IssueView {
  issue: IssueRow;
  repo: IssueRepo;
  /** Null once the poster's account is gone (Gitea's ghost). */
  poster: UserRow | null;
  labels: LabelRow[];
  milestone: MilestoneRow | null;
  assignees: UserRow[];
  attachments: AttachmentRow[];
  pull: PullMeta | null;
}

async function attachmentsOfIssues(db: Queryable, issueIds: number[]): Promise<Map<number, AttachmentRow[]>> {
  const byIssue = new Map<number, AttachmentRow[]>();
  if (issueIds.length === 0) return byIssue;
  const rows = await db.query<AttachmentRow>(
    'SELECT * FROM attachment WHERE issue_id = ANY($1::bigint[]) AND comment_id IS NULL ORDER BY id', [issueIds],
  );
  for (const row of rows) byIssue.set(row.issue_id!, [...(byIssue.get(row.issue_id!) ?? []), row]);
  return byIssue;
}

/**
 * The views of a list of issues in a fixed number of queries, whatever its length. `repos` holds the
 * repositories of the issues (one for a repository's list, several for a search).
 */
export async function loadIssueViews(db: Queryable, issues: IssueRow[], repos: IssueRepo[]): Promise<IssueView[]> {
  const ids = issues.map((issue) => issue.id);
  const [posters, labels, milestones, assignees, attachments, pulls] = await Promise.all([
    findUsersByIds(db, issues.map((issue) => issue.poster_id)),
    labelsOfIssues(db, ids),
    milestonesByIds(db, issues.map((issue) => issue.milestone_id)),
    assigneesOfIssues(db, ids),
    attachmentsOfIssues(db, ids),
    pullsOfIssues(db, issues.filter((issue) => issue.is_pull).map((issue) => issue.id)),
  ]);
  const repoById = new Map(repos.map((repo) => [repo.id, repo]));
  return issues.map((issue) => ({
    issue,
    repo: repoById.get(issue.repo_id)!,
    poster: posters.get(issue.poster_id ?? 0) ?? null,
    labels: labels.get(issue.id) ?? [],
    milestone: issue.milestone_id ? (milestones.get(issue.milestone_id) ?? null) : null,
    assignees: assignees.get(issue.id) ?? [],
    attachments: attachments.get(issue.id) ?? [],
    pull: pullMetaOf(issue, pulls.get(issue.id)),
  }));
}

export async function loadIssueView(db: Queryable, issue: IssueRow, repo: IssueRepo): Promise<IssueView> {
  return (await loadIssueViews(db, [issue], [repo]))[0];
}

/** A comment with what its JSON shows besides the row. */
export interface CommentView {
  comment: CommentRow;
  issue: IssueRow;
  repo: IssueRepo;
  /** Null once the poster's account is gone. */
  poster: UserRow | null;
  attachments: AttachmentRow[];
}

/** The views of comments of one repository; `issues` holds their issues by id. */
export async function loadCommentViews(db: Queryable, comments: CommentRow[], issues: Map<number, IssueRow>, repo: IssueRepo): Promise<CommentView[]> {
  const ids = comments.map((comment) => comment.id);
  const [posters, attachments] = await Promise.all([
    findUsersByIds(db, comments.map((comment) => comment.poster_id)),
    ids.length ? db.query<AttachmentRow>('SELECT * FROM attachment WHERE comment_id = ANY($1::bigint[]) ORDER BY id', [ids]) : Promise.resolve([]),
  ]);
  return comments.map((comment) => ({
    comment,
    issue: issues.get(comment.issue_id)!,
    repo,
    poster: posters.get(comment.poster_id ?? 0) ?? null,
    attachments: attachments.filter((attachment) => attachment.comment_id === comment.id),
  }));
}

/** The repositories of a list of issues (a search across repositories), as their JSON needs them. */
export async function reposOfIssues(db: Queryable, issues: IssueRow[]): Promise<IssueRepo[]> {
  const ids = [...new Set(issues.map((issue) => issue.repo_id))];
  if (ids.length === 0) return [];
  return db.query<IssueRepo>('SELECT id, name, owner_name, owner_id FROM repository WHERE id = ANY($1::bigint[])', [ids]);
}
