import { inTx } from '../db/data-source.js';
import { parseEvent } from '../db/events/catalogue.js';
import { findRepoById } from '../db/models/repos/repos.js';
import { findUsersByIds } from '../db/models/users/users.js';
import { defaultBranchChanged, triggerPush } from '../db/models/actions/triggers.js';
import type { Actor } from './actor.js';

/**
 * Turns a push or a default-branch change into runs and schedule plans. Idempotent: a run is unique per event
 * and workflow file, and plans are made to match the branch, however often this runs.
 */
export const actionsTrigger: Actor<'actions-trigger'> = {
  name: 'actions-trigger',
  job: 'actions-trigger',
  async handle({ eventId }, deps) {
    if (!deps.config.actions.enabled) return 'skipped';
    const [row] = await deps.db.query<{ kind: string; repo_id: string | null; doer_id: string | null; payload: unknown }>(
      'SELECT kind, repo_id, doer_id, payload FROM domain_event WHERE id = $1', [eventId],
    );
    const event = row ? parseEvent(row.kind, row.payload) : null;
    if (!row || !event || !row.repo_id) return 'skipped';
    const repo = await findRepoById(deps.db, Number(row.repo_id));
    if (!repo) return 'skipped';
    const doerId = row.doer_id ? Number(row.doer_id) : null;
    const doer = (await findUsersByIds(deps.db, [doerId])).get(doerId ?? 0) ?? null;
    if (event.kind === 'push') {
      await inTx(deps, (tx) => triggerPush(tx, deps.git, true, { eventId, repo, doer, ...event.payload }));
      return 'done';
    }
    if (event.kind === 'repository.default_branch_changed') {
      await inTx(deps, (tx) => defaultBranchChanged(tx, deps.git, true, repo, doerId));
      return 'done';
    }
    return 'skipped';
  },
};
