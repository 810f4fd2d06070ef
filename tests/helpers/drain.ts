import type { Outcome } from '../../actors/actor.js';
import { allActors } from '../../actors/index.js';
import { jobs, jobNames, type JobName } from '../../jobs/catalogue.js';
import { actorDeps } from '../../workers/subscribe.js';
import type { TestHearth } from './hearth.js';

/** One job `drain` ran: its outcome, or what it threw. */
export interface Drained {
  name: JobName;
  id: string;
  outcome: Outcome | Error;
}

/**
 * Runs queued jobs through their actors in this process, as a worker would, and completes or fails each in
 * pg-boss; repeats until no job is left that may start now. With `name`, only that queue; without, every queue,
 * so jobs an actor enqueues (notify → webhook-delivery) run in the same call. A job that throws is failed
 * and keeps its retry delay, so it is not run again here.
 */
export async function drain(h: TestHearth, name?: JobName): Promise<Drained[]> {
  const deps = actorDeps(h.store, h.config, h.deps.log);
  const drained: Drained[] = [];
  for (;;) {
    let fetched = 0;
    for (const queue of name ? [name] : jobNames) {
      const actor = allActors.find((a) => a.job === queue);
      if (!actor) throw new Error(`no actor handles ${queue}`);
      const batch = await h.store.boss.fetch<unknown>(queue, { batchSize: 20 });
      fetched += batch.length;
      for (const job of batch) {
        try {
          let outcome = await actor.handle(jobs[queue].payload.parse(job.data) as never, deps, { id: job.id });
          // as a worker does: an actor that completed its job itself has its outcome on the job
          if (outcome === 'completed') outcome = ((await h.store.boss.getJobById(queue, job.id))?.output as { value: Outcome }).value;
          else await h.store.boss.complete(queue, job.id, { value: outcome });
          drained.push({ name: queue, id: job.id, outcome });
        } catch (thrown) {
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          await h.store.boss.fail(queue, job.id, error);
          drained.push({ name: queue, id: job.id, outcome: error });
        }
      }
    }
    if (fetched === 0) return drained;
  }
}
