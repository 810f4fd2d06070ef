import type { Transporter } from 'nodemailer';
import type { Store } from '../db/data-source.js';
import type { Services } from '../db/services.js';
import type { JobName, PayloadOf } from '../jobs/catalogue.js';
import type { ClaimedDelivery } from '../db/models/hooks/hook-tasks.js';

/**
 * The webhook deliveries of the process that inserts them: a notifier claims delivery jobs at insert for the slots
 * this process has free, and they start at once, without a fetch (workers/subscribe.ts).
 */
export interface LocalDeliveries {
  /** Takes up to `wanted` free delivery slots. */
  reserve(wanted: number): number;
  /** Starts the claimed deliveries in the slots `reserve` took, and frees the ones left over. */
  start(claimed: ClaimedDelivery[], reserved: number): void;
}

/** What every actor may use; built once per worker process. */
export interface ActorDeps extends Store, Services {
  /** Present when [mailer] ENABLED is true. */
  mail: Transporter | null;
  /** This worker process's id (jobs/lost-jobs.ts), which leases name as their holder; null outside a worker. */
  workerId: number | null;
  /** Present in a worker process that runs the webhook-delivery actor. */
  deliveries: LocalDeliveries | null;
}

export type Outcome = 'done' | 'skipped';

/** The job a worker runs the handler for: a handler may complete it in its own last statement (jobs/queue.ts completeJobsSql). */
export interface RunningJob {
  id: string;
}

/**
 * One actor handles one job kind; it throws to ask pg-boss for a retry. It answers its outcome, which the worker
 * records on the job, or `completed` when its own last statement completed `job` with its outcome already.
 */
export interface Actor<N extends JobName = JobName> {
  name: string;
  job: N;
  handle(payload: PayloadOf<N>, deps: ActorDeps, job?: RunningJob): Promise<Outcome | 'completed'>;
}
