import { inTx } from '../db/data-source.js';
import { enqueueDueMirrors } from '../db/models/mirrors/pull-mirrors.js';
import type { Actor } from './actor.js';

/** The clock's tick: enqueues the pull-mirror syncs and push-mirror pushes that are due, nothing else. */
export const updateMirrors: Actor<'update-mirrors'> = {
  name: 'update-mirrors',
  job: 'update-mirrors',
  handle: async (_payload, deps) => {
    const due = await inTx(deps, (tx) => enqueueDueMirrors(tx));
    return due.pull + due.push > 0 ? 'done' : 'skipped';
  },
};
