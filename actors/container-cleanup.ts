import { inTx } from '../db/data-source.js';
import { cleanupContainerUploads } from '../db/models/packages/container.js';
import type { Actor } from './actor.js';

/** The clock's hourly tick for the container registry: removes abandoned uploads and unreferenced uploaded blobs. */
export const containerCleanup: Actor<'container-cleanup'> = {
  name: 'container-cleanup',
  job: 'container-cleanup',
  handle: async (_payload, deps) => {
    const removed = await inTx(deps, (tx) => cleanupContainerUploads(tx, deps.blobs));
    return removed > 0 ? 'done' : 'skipped';
  },
};
