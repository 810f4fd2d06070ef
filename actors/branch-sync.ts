import { inTx } from '../db/data-source.js';
import { syncPush } from '../db/models/code/push-sync.js';
import type { Actor } from './actor.js';

/** Brings branch rows, tag releases, emptiness and the default branch in line with one accepted push; its commits act on issues. */
export const branchSync: Actor<'branch-sync'> = {
  name: 'branch-sync',
  job: 'branch-sync',
  handle: (payload, deps) => inTx(deps, (tx) => syncPush(tx, deps.git, payload, deps.config.rootUrl)),
};
