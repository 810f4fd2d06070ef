import { inTx } from '../db/data-source.js';
import { parseEvent } from '../db/events/catalogue.js';
import { isActionsBot } from '../db/models/actions/bot.js';
import { defaultBranchChanged, pullActivityOf, triggerPullRequest, triggerPush, type PullActivity } from '../db/models/actions/triggers.js';
import { findPullOfIssue } from '../db/models/pulls/pulls.js';
import { accessModes } from '../db/models/repos/repo-row.js';
import { findRepoById } from '../db/models/repos/repos.js';
import { findUsersByIds } from '../db/models/users/users.js';
import type { PullHookAction } from '../api/render/pull-payloads.js';
import type { Actor } from './actor.js';
import { pullHookPayload } from './pull-hooks.js';

/** The webhook action of the PullRequestPayload a pull request run carries, by activity type. */
const hookActions: Record<PullActivity, PullHookAction> = {
  opened: 'opened', synchronize: 'synchronized', edited: 'edited', closed: 'closed', reopened: 'reopened', assigned: 'assigned',
  unassigned: 'unassigned', labeled: 'label_updated', unlabeled: 'label_updated', milestoned: 'milestoned', demilestoned: 'demilestoned',
  review_requested: 'review_requested', review_request_removed: 'review_request_removed',
};

/**
 * Turns a push, a pull request event or a default-branch change into runs and schedule plans. Idempotent: a run is
 * unique per event and workflow file, and plans are made to match the branch, however often this runs.
 */
export const actionsTrigger: Actor<'actions-trigger'> = {
  name: 'actions-trigger',
  job: 'actions-trigger',
  async handle({ eventId, kind, payload: eventPayload, repoId, doerId }, deps) {
    if (!deps.config.actions.enabled) return 'skipped';
    const event = parseEvent(kind, eventPayload);
    if (!event) return 'skipped';
    const repo = await findRepoById(deps.db, repoId);
    if (!repo) return 'skipped';
    const doer = (await findUsersByIds(deps.db, [doerId])).get(doerId ?? 0) ?? null;
    if (event.kind === 'push') {
      await inTx(deps, (tx) => triggerPush(tx, deps.git, true, { eventId, repo, doer, ...event.payload }));
      return 'done';
    }
    if (event.kind === 'repository.default_branch_changed') {
      await inTx(deps, (tx) => defaultBranchChanged(tx, deps.git, true, repo, doerId));
      return 'done';
    }
    const activity = pullActivityOf(event);
    if (!activity || !doer || isActionsBot(doer)) return 'skipped';
    const issueId = (event.payload as { issue_id: number }).issue_id;
    const pull = await findPullOfIssue(deps.db, issueId);
    const action = event.kind === 'issue.unlabelled' && event.payload.cleared ? 'label_cleared' : hookActions[activity];
    const rendered = pull && await pullHookPayload(deps, deps.config, { repo, doer, issueId, type: 'pull_request', action, mode: accessModes.owner });
    if (!pull || !rendered || rendered.type !== 'pull_request') return 'skipped';
    const payload = rendered.body as unknown as Record<string, unknown>;
    const title = rendered.body.pull_request.title;
    await inTx(deps, (tx) => triggerPullRequest(tx, deps.git, true, { eventId, repo, doer, pull, activity, title, payload }));
    return 'done';
  },
};
