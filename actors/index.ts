import type { Actor } from './actor.js';
import { branchSync } from './branch-sync.js';
import { mailer } from './mailer.js';
import { notifier } from './notifier.js';
import { webhookDelivery } from './webhook-delivery.js';

/** Every actor. The worker refuses to start unless each catalogued job has exactly one of them. */
export const allActors: Actor[] = [mailer as Actor, branchSync as Actor, notifier as Actor, webhookDelivery as Actor];
