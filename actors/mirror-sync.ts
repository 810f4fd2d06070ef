import { syncPullMirror } from '../db/models/mirrors/pull-mirrors.js';
import type { Actor } from './actor.js';

/** Fetches a pull mirror's source and records the ref changes as a push. */
export const mirrorSync: Actor<'mirror-sync'> = {
  name: 'mirror-sync',
  job: 'mirror-sync',
  handle: (payload, deps) => syncPullMirror(deps, payload.repoId, deps.workerId),
};
