import type { Logger } from 'pino';
import type { Transporter } from 'nodemailer';
import type { Config } from '../db/process/config.js';
import type { Store } from '../db/data-source.js';
import type { GitStore } from '../db/git/store.js';
import type { JobName, PayloadOf } from '../jobs/catalogue.js';

/** What every actor may use; built once per worker process. */
export interface ActorDeps extends Store {
  config: Config;
  log: Logger;
  git: GitStore;
  /** Present when [mailer] ENABLED is true. */
  mail: Transporter | null;
}

export type Outcome = 'done' | 'skipped';

/** One actor handles one job kind; it throws to ask pg-boss for a retry. */
export interface Actor<N extends JobName = JobName> {
  name: string;
  job: N;
  handle(payload: PayloadOf<N>, deps: ActorDeps): Promise<Outcome>;
}
