import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Actor, ActorDeps } from '../actors/actor.js';
import type { Config } from '../db/process/config.js';
import type { Store } from '../db/data-source.js';
import { buildServices } from '../db/services.js';
import { jobs, jobNames, type JobName } from '../jobs/catalogue.js';
import { forbidRetry, listenForJobs } from '../jobs/queue.js';
import { claimJob, recoverLostJobs, registerWorker, sweepIntervalMs } from '../jobs/lost-jobs.js';
import { StartupError } from '../db/process/startup.js';

/** Picks the actors named in HEARTH_ACTORS (all when unset) and checks the catalogue is covered exactly once. */
export function chooseActors(all: Actor[], selection: string | undefined): Actor[] {
  for (const name of jobNames) {
    const handlers = all.filter((actor) => actor.job === name);
    if (handlers.length !== 1) throw new Error(`job ${name} has ${handlers.length} actors; it needs exactly one`);
  }
  if (!selection || selection === 'all') return all;
  const wanted = selection.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((name) => !all.some((actor) => actor.name === name));
  if (unknown.length) throw new StartupError(`HEARTH_ACTORS names unknown actors: ${unknown.join(', ')}`);
  return all.filter((actor) => wanted.includes(actor.name));
}

export function actorDeps(store: Store, config: Config, log: Logger): ActorDeps {
  const { enabled, smtpAddr, smtpPort } = config.mailer;
  const mail = enabled && smtpAddr
    ? nodemailer.createTransport({ host: smtpAddr, port: smtpPort ?? 25, secure: smtpPort === 465, ignoreTLS: smtpPort !== 465 && smtpPort !== 587 })
    : null;
  return { ...store, ...buildServices(config, log), mail, workerId: null };
}

export interface Subscription {
  /** Stops fetching, waits for running jobs, closes the wake-up listener. */
  drain(): Promise<void>;
  /** This process's id in the jobs it runs (see jobs/lost-jobs.ts). */
  workerId: number;
}

/**
 * Subscribes each actor to its queue, `concurrency` loops per queue. Loops are woken one at a time: the LISTEN
 * connection wakes one idle loop of a queue on every insert, a loop that got a job wakes the next idle one before
 * it runs it (so a fan-out of many jobs spreads over all loops within a few fetches), and a loop that finished a
 * job fetches again at once. A queue with nothing to do costs one empty fetch per wake-up, not one per loop.
 */
export async function subscribe(actors: Actor[], processDeps: ActorDeps, connectionString: string): Promise<Subscription> {
  const registration = await registerWorker(connectionString);
  const deps: ActorDeps = { ...processDeps, workerId: registration.id };
  const sweep = async (): Promise<void> => {
    const queues = await recoverLostJobs(deps.boss);
    if (queues.length > 0) deps.log.warn({ queues }, 'jobs of a stopped worker process run again');
    for (const queue of queues) wake(queue);
  };
  const loops = new Map<string, { ids: string[]; busy: Set<string>; turn: number }>();
  /** Wakes one loop of the queue that is not running a job (taking turns), if there is one. */
  const wake = (queue: string): void => {
    const queueLoops = loops.get(queue);
    if (!queueLoops) return;
    const idle = queueLoops.ids.filter((id) => !queueLoops.busy.has(id));
    if (idle.length === 0) return;
    deps.boss.notifyWorker(idle[queueLoops.turn++ % idle.length]);
  };
  for (const actor of actors) {
    const definition = jobs[actor.job as JobName];
    const queueLoops = { ids: [] as string[], busy: new Set<string>(), turn: 0 };
    loops.set(actor.job, queueLoops);
    for (let i = 0; i < definition.concurrency; i++) {
      let self: string | undefined;
      const id = await deps.boss.work<unknown>(actor.job, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
        if (self) queueLoops.busy.add(self);
        wake(actor.job);
        try {
          const payload = definition.payload.safeParse(job.data);
          if (!payload.success) {
            // enqueue checks payloads, so this one was sent some other way; no retry will make it valid
            deps.log.error({ actor: actor.name, job: job.id, issues: payload.error.issues }, 'job payload refused; failed without retry');
            await forbidRetry(deps.boss, actor.job, job.id);
            throw payload.error;
          }
          await claimJob(deps.boss, actor.job, job.id, registration.id);
          const started = Date.now();
          const outcome = await actor.handle(payload.data as never, deps);
          deps.log.info({ actor: actor.name, job: job.id, outcome, ms: Date.now() - started }, 'job handled');
          return outcome;
        } finally {
          if (self) {
            queueLoops.busy.delete(self);
            // there may be more: this loop fetches again without waiting for its polling interval
            deps.boss.notifyWorker(self);
          }
        }
      });
      self = id;
      queueLoops.ids.push(id);
    }
  }
  await sweep();
  const sweeper = setInterval(() => void sweep().catch((error: unknown) => deps.log.warn({ error: String(error) }, 'lost-job sweep failed')), sweepIntervalMs);
  sweeper.unref();
  const stopListening = await listenForJobs(connectionString, wake);
  for (const actor of actors) wake(actor.job);
  return {
    workerId: registration.id,
    async drain() {
      clearInterval(sweeper);
      await stopListening();
      for (const actor of actors) await deps.boss.offWork(actor.job);
      await registration.release();
    },
  };
}
