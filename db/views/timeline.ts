import type { Queryable } from '../data-source.js';
import type { CommentRow, IssueRow, MilestoneRow } from '../models/issues/issue-row.js';
import { issuesByIds } from '../models/issues/issues.js';
import { milestonesByIds } from '../models/issues/milestones.js';
import type { LabelRow } from '../models/orgs/labels.js';
import { findUsersByIds } from '../models/users/users.js';
import type { UserRow } from '../models/users/user-row.js';
import { loadIssueViews, type IssueRepo, type IssueView } from './issues.js';
import { findTeam } from '../models/orgs/teams.js';
import type { TeamWithOrg } from './teams.js';

/** One timeline entry with the things it names, loaded. */
export interface TimelineView {
  comment: CommentRow;
  issue: IssueRow;
  repo: IssueRepo;
  poster: UserRow | null;
  label: LabelRow | null;
  milestone: MilestoneRow | null;
  oldMilestone: MilestoneRow | null;
  assignee: UserRow | null;
  /** The team a `review_request` entry asks (or stops asking). */
  assigneeTeam: TeamWithOrg | null;
  dependentIssue: IssueView | null;
  refIssue: IssueView | null;
}

/**
 * The views of an issue's timeline in a fixed number of queries. Issues named by an entry (dependencies,
 * references) are shown only when they are in this repository or one `readable` says the caller may read.
 */
export async function loadTimelineViews(
  db: Queryable, comments: CommentRow[], issue: IssueRow, repo: IssueRepo, readable: (repoId: number) => Promise<boolean>,
): Promise<TimelineView[]> {
  const ids = <K extends keyof CommentRow>(key: K) => comments.map((c) => c[key] as number | null).filter((id): id is number => Boolean(id));
  const [users, milestones, labelRows, related] = await Promise.all([
    findUsersByIds(db, [...ids('poster_id'), ...ids('assignee_id')]),
    milestonesByIds(db, [...ids('milestone_id'), ...ids('old_milestone_id')]),
    ids('label_id').length ? db.query<LabelRow>('SELECT * FROM label WHERE id = ANY($1::bigint[])', [ids('label_id')]) : Promise.resolve([]),
    issuesByIds(db, [...ids('dependent_issue_id'), ...ids('ref_issue_id')]),
  ]);
  const relatedRepoIds = [...new Set([...related.values()].map((row) => row.repo_id))];
  const repos = relatedRepoIds.length
    ? await db.query<IssueRepo>('SELECT id, name, owner_name, owner_id FROM repository WHERE id = ANY($1::bigint[])', [relatedRepoIds])
    : [];
  const visible = new Set<number>();
  for (const repoId of relatedRepoIds) if (repoId === repo.id || (await readable(repoId))) visible.add(repoId);
  const shown = [...related.values()].filter((row) => visible.has(row.repo_id));
  const relatedViews = new Map((await loadIssueViews(db, shown, repos)).map((view) => [view.issue.id, view]));
  const labels = new Map(labelRows.map((label) => [label.id, label]));
  const teams = new Map<number, TeamWithOrg>();
  for (const teamId of new Set(ids('assignee_team_id'))) {
    const team = await findTeam(db, teamId);
    if (team) teams.set(teamId, { team, org: null });
  }
  return comments.map((comment) => ({
    comment,
    issue,
    repo,
    poster: users.get(comment.poster_id ?? 0) ?? null,
    label: labels.get(comment.label_id ?? 0) ?? null,
    milestone: milestones.get(comment.milestone_id ?? 0) ?? null,
    oldMilestone: milestones.get(comment.old_milestone_id ?? 0) ?? null,
    assignee: users.get(comment.assignee_id ?? 0) ?? null,
    assigneeTeam: teams.get(comment.assignee_team_id ?? 0) ?? null,
    dependentIssue: relatedViews.get(comment.dependent_issue_id ?? 0) ?? null,
    refIssue: relatedViews.get(comment.ref_issue_id ?? 0) ?? null,
  }));
}
