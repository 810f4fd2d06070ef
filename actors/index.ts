import type { Actor } from './actor.js';
import { branchSync } from './branch-sync.js';
import { mailer } from './mailer.js';
import { migrate } from './migrate.js';
import { mirrorSync } from './mirror-sync.js';
import { pushMirror } from './push-mirror.js';
import { notifier } from './notifier.js';
import { webhookDelivery } from './webhook-delivery.js';
import { actionsTrigger } from './actions-trigger.js';
import { schedulePlanner } from './schedule-planner.js';
import { actionsReplan } from './actions-replan.js';
import { autoMerge } from './auto-merge.js';
import { cronActors } from './cron-tasks.js';

/** Every actor. The worker refuses to start unless each catalogued job has exactly one of them. */
export const allActors: Actor[] = [
  mailer as Actor, branchSync as Actor, migrate as Actor, mirrorSync as Actor, pushMirror as Actor,
  notifier as Actor, webhookDelivery as Actor, actionsTrigger as Actor, schedulePlanner as Actor, autoMerge as Actor,
  actionsReplan as Actor, ...(cronActors as Actor[]),
];
