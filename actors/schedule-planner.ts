import { inTx } from '../db/data-source.js';
import { firePlan } from '../db/models/actions/schedules.js';
import type { Actor } from './actor.js';

/** One firing of a schedule plan: at most one run per plan and time slot, whichever clock or worker queued it. */
export const schedulePlanner: Actor<'schedule-planner'> = {
  name: 'schedule-planner',
  job: 'schedule-planner',
  async handle({ planId, slot }, deps) {
    const run = await inTx(deps, (tx) => firePlan(tx, deps.config.actions.enabled, planId, new Date(slot)));
    return run ? 'done' : 'skipped';
  },
};
