import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Actor, ActorDeps } from '../actors/actor.js';
import type { Config } from '../db/process/config.js';
import type { Store } from '../db/data-source.js';
import { GitStore } from '../db/git/store.js';
import { jobs, jobNames, type JobName } from '../jobs/catalogue.js';
import { listenForJobs } from '../jobs/queue.js';

/** Picks the actors named in HEARTH_ACTORS (all when unset) and checks the catalogue is covered exactly once. */
export function chooseActors(all: Actor[], selection: string | undefined): Actor[] {
  for (const name of jobNames) {
    const handlers = all.filter((actor) => actor.job === name);
    if (handlers.length !== 1) throw new Error(`job ${name} has ${handlers.length} actors; it needs exactly one`);
  }
  if (!selection || selection === 'all') return all;
  const wanted = selection.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((name) => !all.some((actor) => actor.name === name));
  if (unknown.length) throw new Error(`HEARTH_ACTORS names unknown actors: ${unknown.join(', ')}`);
  return all.filter((actor) => wanted.includes(actor.name));
}

export function actorDeps(store: Store, config: Config, log: Logger): ActorDeps {
  const { enabled, smtpAddr, smtpPort } = config.mailer;
  const mail = enabled && smtpAddr
    ? nodemailer.createTransport({ host: smtpAddr, port: smtpPort ?? 25, secure: smtpPort === 465, ignoreTLS: smtpPort !== 465 && smtpPort !== 587 })
    : null;
  return { ...store, config, log, mail, git: new GitStore(path.join(config.dataDir, 'git')) };
}

export interface Subscription {
  /** Stops fetching, waits for running jobs, closes the wake-up listener. */
  drain(): Promise<void>;
}

/**
 * Subscribes each actor to its queue, `concurrency` loops per queue. A LISTEN connection wakes the loop
 * on every insert; a full batch asks for the next one at once, so a backlog drains without polling gaps.
 */
export async function subscribe(actors: Actor[], deps: ActorDeps, connectionString: string): Promise<Subscription> {
  const workerIds = new Map<string, string[]>();
  const wake = (queue: string): void => {
    for (const id of workerIds.get(queue) ?? []) deps.boss.notifyWorker(id);
  };
  for (const actor of actors) {
    const definition = jobs[actor.job as JobName];
    const ids: string[] = [];
    for (let i = 0; i < definition.concurrency; i++) {
      const id = await deps.boss.work<unknown>(actor.job, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
        const payload = definition.payload.parse(job.data);
        const started = Date.now();
        const outcome = await actor.handle(payload as never, deps);
        deps.log.info({ actor: actor.name, job: job.id, outcome, ms: Date.now() - started }, 'job handled');
        wake(actor.job);
        return outcome;
      });
      ids.push(id);
    }
    workerIds.set(actor.job, ids);
  }
  const stopListening = await listenForJobs(connectionString, wake);
  for (const actor of actors) wake(actor.job);
  return {
    async drain() {
      await stopListening();
      for (const actor of actors) await deps.boss.offWork(actor.job);
    },
  };
}
