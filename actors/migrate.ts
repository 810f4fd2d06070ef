import { runMigration } from '../db/models/mirrors/migrations.js';
import type { Actor } from './actor.js';

/** Clones a migration's source into the repository made for it; a failure removes the repository and is recorded on the task. */
export const migrate: Actor<'migrate'> = {
  name: 'migrate',
  job: 'migrate',
  handle: (payload, deps) => runMigration(deps, payload.taskId),
};
