import { inTx } from '../db/data-source.js';
import { replanRepository } from '../db/models/actions/triggers.js';
import type { Actor } from './actor.js';

/** A repository's schedule plans made anew from its default branch, after actions were switched on again. Idempotent. */
export const actionsReplan: Actor<'actions-replan'> = {
  name: 'actions-replan',
  job: 'actions-replan',
  async handle({ repoId }, deps) {
    if (!deps.config.actions.enabled) return 'skipped';
    return (await inTx(deps, (tx) => replanRepository(tx, deps.git, true, repoId))) ? 'done' : 'skipped';
  },
};
