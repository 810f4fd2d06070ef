import os from 'node:os';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Actor, ActorDeps, Outcome } from '../actors/actor.js';
import type { Config } from '../db/process/config.js';
import type { Store } from '../db/data-source.js';
import { buildServices } from '../db/services.js';
import { jobs, jobNames, type JobName } from '../jobs/catalogue.js';
import { forbidRetry, listenForJobs } from '../jobs/queue.js';
import { fetchClaimed, recoverLostJobs, registerWorker, sweepIntervalMs } from '../jobs/lost-jobs.js';
import { StartupError } from '../db/process/startup.js';
import { startJobRunner, type JobRunner } from './job-runner.js';
import { deliver } from '../actors/webhook-delivery.js';
import type { ClaimedDelivery } from '../db/models/hooks/hook-tasks.js';
import { vacuumQueue } from '../jobs/queue-vacuum.js';
import { recordJobRun } from '../db/process/metrics.js';

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
  return { ...store, ...buildServices(config, log), mail, workerId: null, deliveries: null };
}

export interface Subscription {
  /** Stops fetching, waits for running jobs, closes the wake-up listener. */
  drain(): Promise<void>;
  /** This process's id in the jobs it runs (see jobs/lost-jobs.ts). */
  workerId: number;
}

/** What an actor answers, as the job runner takes it: null when the actor completed the job itself. */
const runnerOutcome = (outcome: Outcome | 'completed'): string | null => (outcome === 'completed' ? null : outcome);

/** How long a draining worker waits for its running jobs; those still running then are run again by another worker. */
const drainGraceMs = 15_000;

/**
 * Subscribes each actor to its queue: a job runner per queue runs up to the catalogue's `concurrency` jobs at once,
 * fetching as many as it has free slots in one statement. The LISTEN connection wakes a queue's runner on every
 * insert; a runner also polls every two seconds for retries whose delay ran out.
 */
export async function subscribe(actors: Actor[], processDeps: ActorDeps, connectionString: string): Promise<Subscription> {
  const registration = await registerWorker(connectionString, {
    host: os.hostname(),
    pid: process.pid,
    actors: actors.map((actor) => actor.name),
    queues: Object.fromEntries(actors.map((actor) => [actor.job, jobs[actor.job as JobName].concurrency])),
  });
  const deps: ActorDeps = { ...processDeps, workerId: registration.id };
  const runners = new Map<string, JobRunner>();
  const wake = (queue: string): void => runners.get(queue)?.wake();
  const sweep = async (): Promise<void> => {
    const queues = await recoverLostJobs(deps.boss);
    if (queues.length > 0) deps.log.warn({ queues }, 'jobs of a stopped worker process run again');
    for (const queue of queues) wake(queue);
  };
  for (const actor of actors) {
    const definition = jobs[actor.job as JobName];
    runners.set(actor.job, startJobRunner({
      boss: deps.boss,
      queue: actor.job,
      concurrency: definition.concurrency,
      pollingMs: 2_000,
      log: deps.log,
      fetch: (batchSize) => fetchClaimed(deps.boss, actor.job, batchSize, registration.id),
      vacuum: () => vacuumQueue(deps.boss, actor.job),
      observe: (outcome, seconds) => recordJobRun(actor.job, outcome, seconds),
      async handle(job) {
        const payload = definition.payload.safeParse(job.data);
        if (!payload.success) {
          // enqueue checks payloads, so this one was sent some other way; no retry will make it valid
          deps.log.error({ actor: actor.name, job: job.id, issues: payload.error.issues }, 'job payload refused; failed without retry');
          await forbidRetry(deps.boss, actor.job, job.id);
          throw payload.error;
        }
        const started = Date.now();
        const outcome = await actor.handle(payload.data as never, deps, { id: job.id });
        // one line per job at debug: at hundreds of jobs a second the info log would cost more than some jobs do
        deps.log.debug({ actor: actor.name, job: job.id, outcome, ms: Date.now() - started }, 'job handled');
        return runnerOutcome(outcome);
      },
    }));
  }
  const deliveryRunner = runners.get('webhook-delivery');
  if (deliveryRunner) {
    deps.deliveries = {
      reserve: (wanted) => deliveryRunner.reserve(wanted),
      start: (claimed: ClaimedDelivery[], reserved) => deliveryRunner.runReserved(claimed.map((delivery) => ({
        job: { id: delivery.jobId, name: 'webhook-delivery', data: { taskId: delivery.task.id }, expireInSeconds: delivery.expireInSeconds },
        work: async () => runnerOutcome(await deliver(delivery, deps, { id: delivery.jobId })),
      })), reserved),
    };
  }
  await sweep();
  const sweeper = setInterval(() => void sweep().catch((error: unknown) => deps.log.warn({ error: String(error) }, 'lost-job sweep failed')), sweepIntervalMs);
  sweeper.unref();
  const stopListening = await listenForJobs(connectionString, wake);
  for (const runner of runners.values()) runner.wake();
  return {
    workerId: registration.id,
    async drain() {
      clearInterval(sweeper);
      await stopListening();
      await Promise.all([...runners.values()].map((runner) => runner.stop(drainGraceMs)));
      await registration.release();
    },
  };
}
