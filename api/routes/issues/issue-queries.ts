import { z } from 'zod';
import { notFound } from '../../../db/errors.js';
import { labelIdsByNames, milestoneIdsByNamesOrIds, type IssueFilter } from '../../../db/models/issues/issue-list.js';
import { findUserByName } from '../../../db/models/users/users.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import type { LoadedRepo } from '../../context/repo.js';
import { issueUnitMode } from '../../context/issue.js';
import type { Deps } from '../../deps.js';
import { dateTimeQuery } from './schemas.js';

const list = (text: string | undefined): string[] => (text ?? '').split(',').map((part) => part.trim()).filter(Boolean);

export const listIssuesQuery = z.object({
  state: z.enum(['open', 'closed', 'all']).optional(),
  labels: z.string().optional(),
  q: z.string().optional(),
  type: z.enum(['issues', 'pulls']).optional(),
  milestones: z.string().optional(),
  since: dateTimeQuery,
  before: dateTimeQuery,
  created_by: z.string().optional(),
  assigned_by: z.string().optional(),
  mentioned_by: z.string().optional(),
});

/** Whether a list query names no filter but the state (the repository guard can then read the page). */
export function filtersByStateOnly(query: z.output<typeof listIssuesQuery>): boolean {
  const { state, page, limit, ...filters } = query as z.output<typeof listIssuesQuery> & { page?: number; limit?: number };
  return Object.values(filters).every((value) => value === undefined);
}

async function userIdFor(deps: Deps, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const user = await findUserByName(deps.db, name);
  if (!user) throw notFound(`user redirect does not exist [name: ${name}]`);
  return user.id;
}

/**
 * Gitea's ListIssues filter: `type` limited to the units the caller may read (404 when neither), label names
 * and milestone names or ids of the repository (unknown ones discarded), users by login (404 when unknown).
 */
export async function issueFilterOf(deps: Deps, repo: LoadedRepo, query: z.output<typeof listIssuesQuery>): Promise<IssueFilter> {
  const [issues, pulls] = await Promise.all([issueUnitMode(deps, repo, false), issueUnitMode(deps, repo, true)]);
  const canIssues = issues >= accessModes.read;
  const canPulls = pulls >= accessModes.read;
  let isPull = query.type === undefined ? undefined : query.type === 'pulls';
  if (isPull === undefined) {
    if (!canIssues && !canPulls) throw notFound();
    if (!canIssues) isPull = true;
    else if (!canPulls) isPull = false;
  } else if (isPull ? !canPulls : !canIssues) throw notFound();
  const labelNames = list(query.labels);
  const milestoneParts = list(query.milestones);
  const [labelIds, milestoneIds, posterId, assigneeId, mentionedId] = await Promise.all([
    labelIdsByNames(deps.db, repo.repo.id, repo.repo.owner_id, labelNames),
    milestoneIdsByNamesOrIds(deps.db, repo.repo.id, milestoneParts),
    userIdFor(deps, query.created_by),
    userIdFor(deps, query.assigned_by),
    userIdFor(deps, query.mentioned_by),
  ]);
  return {
    state: query.state ?? 'open', isPull, keyword: query.q?.trim() || undefined, since: query.since, before: query.before,
    labelIds: labelIds.length ? labelIds : undefined, milestoneIds: milestoneIds.length ? milestoneIds : undefined,
    posterId, assigneeId, mentionedId,
  };
}
