import type { Transporter } from 'nodemailer';
import type { Store } from '../db/data-source.js';
import type { Services } from '../db/services.js';
import type { JobName, PayloadOf } from '../jobs/catalogue.js';

/** What every actor may use; built once per worker process. */
export interface ActorDeps extends Store, Services {
  /** Present when [mailer] ENABLED is true. */
  mail: Transporter | null;
  /** This worker process's id (jobs/lost-jobs.ts), which leases name as their holder; null outside a worker. */
  workerId: number | null;
}

export type Outcome = 'done' | 'skipped';

/** One actor handles one job kind; it throws to ask pg-boss for a retry. */
export interface Actor<N extends JobName = JobName> {
  name: string;
  job: N;
  handle(payload: PayloadOf<N>, deps: ActorDeps): Promise<Outcome>;
}
