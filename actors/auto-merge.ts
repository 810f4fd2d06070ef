import { runScheduledMerge } from '../db/models/automerge/run-scheduled-merge.js';
import type { Actor } from './actor.js';

/** Makes a pull request's scheduled merge once its base branch's protection passes (Gitea's pr_auto_merge queue). */
export const autoMerge: Actor<'pull-auto-merge'> = {
  name: 'auto-merge',
  job: 'pull-auto-merge',
  handle: ({ pullId }, deps) => runScheduledMerge(deps, pullId),
};
