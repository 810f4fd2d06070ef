import type { Queryable } from '../data-source.js';
import type { CommentRow, IssueRow, MilestoneRow } from '../models/issues/issue-row.js';
import { isWorkInProgress } from '../models/pulls/pull-row.js';
import type { LabelRow } from '../models/orgs/labels.js';
import type { AttachmentRow } from '../models/releases/attachments.js';
import type { RepoRow } from '../models/repos/repo-row.js';
import { findUsersByIds } from '../models/users/users.js';
import { userRowFromJson, type UserRow } from '../models/users/user-row.js';
import { rowFromJson } from '../sql.js';
import { issueViewVersionSql } from '../models/issues/issue-view-version.js';

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

/** What the views of a list of issues need besides the rows, each part aggregated as JSON by PostgreSQL. */
interface IssueViewParts {
  /** The labels on any of the issues, by name then id: the order each issue shows its own in. */
  labels: Record<string, unknown>[] | null;
  /** [issue id, label id] */
  label_links: Array<[number, number]> | null;
  /** [issue id, assignee id], by assignee id */
  assignee_links: Array<[number, number]> | null;
  /** Posters and assignees. */
  users: Record<string, unknown>[] | null;
  milestones: Record<string, unknown>[] | null;
  attachments: Record<string, unknown>[] | null;
  pulls: Array<{ issue_id: number; has_merged: boolean; merged_at: string | null }> | null;
}

/**
 * $1 the issues, $2 their posters, $3 their milestones, $4 the pull requests among them. Users are looked up by one
 * array of both kinds of ids, through the primary key: an OR of the two conditions would read the whole user table.
 */
const issueViewPartsSql = `
  SELECT
    (SELECT json_agg(l ORDER BY l.name, l.id) FROM label l
      WHERE l.id IN (SELECT label_id FROM issue_label WHERE issue_id = ANY($1::bigint[]))) AS labels,
    (SELECT json_agg(json_build_array(issue_id, label_id)) FROM issue_label WHERE issue_id = ANY($1::bigint[])) AS label_links,
    (SELECT json_agg(json_build_array(issue_id, assignee_id) ORDER BY issue_id, assignee_id)
      FROM issue_assignees WHERE issue_id = ANY($1::bigint[])) AS assignee_links,
    (SELECT json_agg(u) FROM "user" u
      WHERE u.id = ANY($2::bigint[] || ARRAY(SELECT assignee_id FROM issue_assignees WHERE issue_id = ANY($1::bigint[])))) AS users,
    (SELECT json_agg(m) FROM milestone m WHERE m.id = ANY($3::bigint[])) AS milestones,
    (SELECT json_agg(a ORDER BY a.id) FROM attachment a WHERE a.issue_id = ANY($1::bigint[]) AND a.comment_id IS NULL) AS attachments,
    (SELECT json_agg(json_build_object('issue_id', p.issue_id, 'has_merged', p.has_merged, 'merged_at', p.merged_at))
      FROM pull_request p WHERE p.issue_id = ANY($4::bigint[])) AS pulls`;

function groupBy<T>(links: Array<[number, number]> | null, byId: Map<number, T>): Map<number, T[]> {
  const grouped = new Map<number, T[]>();
  for (const [issueId, id] of links ?? []) {
    const item = byId.get(id);
    if (item === undefined) continue;
    const list = grouped.get(issueId);
    if (list) list.push(item);
    else grouped.set(issueId, [item]);
  }
  return grouped;
}

/** Issue rows by id, each with the version of its view as it was read (issueViewVersionSql). */
export async function issuesWithVersions(db: Queryable, ids: number[]): Promise<Array<IssueRow & { view_version: string }>> {
  return db.query(`SELECT i.*, ${issueViewVersionSql} AS view_version FROM issue i WHERE i.id = ANY($1::bigint[])`, [ids]);
}

/**
 * The views of a list of issues in one query, whatever its length. `repos` holds the repositories of the
 * issues (one for a repository's list, several for a search).
 */
export async function loadIssueViews(db: Queryable, issues: IssueRow[], repos: IssueRepo[]): Promise<IssueView[]> {
  if (issues.length === 0) return [];
  const distinct = (ids: Array<number | null>): number[] => [...new Set(ids.filter((id): id is number => id !== null))];
  const [parts] = await db.query<IssueViewParts>(issueViewPartsSql, [
    issues.map((issue) => issue.id),
    distinct(issues.map((issue) => issue.poster_id)),
    distinct(issues.map((issue) => issue.milestone_id)),
    issues.filter((issue) => issue.is_pull).map((issue) => issue.id),
  ]);
  const labels = (parts.labels ?? []).map((json) => rowFromJson<LabelRow>(json, ['archived_at', 'created', 'updated']));
  // the labels come by name, so each issue's list keeps that order
  const rank = new Map(labels.map((label, i) => [label.id, i]));
  const labelLinks = (parts.label_links ?? []).sort((a, b) => rank.get(a[1])! - rank.get(b[1])!);
  const labelsByIssue = groupBy(labelLinks, new Map(labels.map((label) => [label.id, label])));
  const users = new Map((parts.users ?? []).map((json) => userRowFromJson(json)).map((user) => [user.id, user]));
  const assigneesByIssue = groupBy(parts.assignee_links, users);
  const milestones = new Map((parts.milestones ?? []).map((json) => {
    const milestone = rowFromJson<MilestoneRow>(json, ['deadline', 'closed_at', 'created', 'updated']);
    return [milestone.id, milestone];
  }));
  const attachmentsByIssue = new Map<number, AttachmentRow[]>();
  for (const json of parts.attachments ?? []) {
    const attachment = rowFromJson<AttachmentRow>(json, ['created']);
    attachmentsByIssue.set(attachment.issue_id!, [...(attachmentsByIssue.get(attachment.issue_id!) ?? []), attachment]);
  }
  const pulls = new Map((parts.pulls ?? []).map((pull) => [pull.issue_id, { has_merged: pull.has_merged, merged_at: pull.merged_at ? new Date(pull.merged_at) : null }]));
  const repoById = new Map(repos.map((repo) => [repo.id, repo]));
  return issues.map((issue) => ({
    issue,
    repo: repoById.get(issue.repo_id)!,
    poster: users.get(issue.poster_id ?? 0) ?? null,
    labels: labelsByIssue.get(issue.id) ?? [],
    milestone: issue.milestone_id ? (milestones.get(issue.milestone_id) ?? null) : null,
    assignees: assigneesByIssue.get(issue.id) ?? [],
    attachments: attachmentsByIssue.get(issue.id) ?? [],
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
