import { runPushMirror } from '../db/models/mirrors/push-mirrors.js';
import type { Actor } from './actor.js';

/** Pushes a repository's branches and tags to one push mirror target. */
export const pushMirror: Actor<'push-mirror'> = {
  name: 'push-mirror',
  job: 'push-mirror',
  handle: (payload, deps) => runPushMirror(deps, payload.pushMirrorId, deps.workerId),
};
