import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { completeJobs } from '../jobs/queue.js';
import { vacuumEveryJobs } from '../jobs/queue-vacuum.js';

/**
 * The pg-boss schema (its `pgboss.version` row) whose tables this runner, the claim-at-insert deliveries and
 * jobs/queue.ts read and write directly: pg-boss 10.4.2, pinned exactly in package.json. Upgrading pg-boss: see
 * docs/fast-paths.md; tests/jobs/pg-boss-schema.test.ts fails while this and the installed schema differ.
 */
export const knownPgBossSchema = 24;

export interface JobRunnerOptions {
  boss: PgBoss;
  queue: string;
  /** Jobs of the queue running at once in this process. */
  concurrency: number;
  /** A fetch this often without a wake-up: a retry whose delay runs out inserts nothing that would wake us. */
  pollingMs: number;
  /** Fetches up to `batchSize` jobs of the queue and marks them as this process's (jobs/lost-jobs.ts fetchClaimed). */
  fetch(batchSize: number): Promise<Array<PgBoss.Job<unknown>>>;
  /**
   * Runs one job; what it answers is stored as the job's output, a throw fails the job (pg-boss retries it). Null:
   * the handler completed the job itself.
   */
  handle(job: PgBoss.Job<unknown>): Promise<string | null>;
  /** Told each job's outcome (the actor's answer, `completed` when it completed the job itself, or `failed`) and run time. */
  observe?(outcome: string, seconds: number): void;
  /** Vacuums the queue's table (jobs/queue-vacuum.ts); run in the background after every `vacuumEveryJobs` settled jobs. */
  vacuum?: () => Promise<void>;
  log: Logger;
}

/** A job this process claimed as it inserted it (jobs/queue.ts ClaimAtInsert), with the work that runs it. */
export interface ClaimedJob {
  job: PgBoss.Job<unknown>;
  /** As JobRunnerOptions.handle. */
  work(): Promise<string | null>;
}

export interface JobRunner {
  /** Fetches at once if a slot is free (a job was inserted, or one finished). */
  wake(): void;
  /** Takes up to `wanted` free slots for jobs about to be claimed at insert; none while stopping. */
  reserve(wanted: number): number;
  /** Runs claimed jobs in the slots `reserve` took, and frees those of the `reserved` that are left over. */
  runReserved(claimed: ClaimedJob[], reserved: number): void;
  /** Stops fetching and waits up to `graceMs` for the running jobs and their completions. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Runs one queue's jobs, each on its own, at most `concurrency` at once: every free slot is filled by one fetch of
 * as many jobs as there are free slots (one statement for a whole fan-out), and each job runs and settles alone (a slow
 * one holds only its own slot). A finished job fetches again only when jobs may be waiting: the last fetch filled
 * every slot, or a wake-up came while none was free. Completions are written in batches, a few milliseconds apart.
 */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const { boss, queue, concurrency, log } = options;
  let running = 0;
  let stopping = false;
  /** A wake-up came (or a full batch was fetched) since the last fetch began. */
  let wanted = false;
  /** Jobs may be waiting that no fetch took: the last one filled every slot, or a wake-up found no slot free. */
  let backlog = false;
  let fetching: Promise<void> | null = null;
  const idle = new Set<() => void>();
  const completions = completionWriter(boss, queue, log);

  const fill = async (): Promise<void> => {
    while (wanted && !stopping) {
      wanted = false;
      const free = concurrency - running;
      // a finishing job wakes the runner again
      if (free <= 0) {
        backlog = true;
        return;
      }
      backlog = false;
      const fetched = await options.fetch(free);
      if (fetched.length === free) wanted = true;
      for (const job of fetched) run(job);
    }
  };

  const wake = (): void => {
    wanted = true;
    if (fetching || stopping) return;
    fetching = fill()
      .catch((error: unknown) => {
        wanted = false;
        log.warn({ queue, error: String(error) }, 'fetching jobs failed; the next poll tries again');
      })
      .finally(() => {
        fetching = null;
        if (wanted) wake();
      });
  };

  const settle = async (job: PgBoss.Job<unknown>, work: () => Promise<string | null>): Promise<void> => {
    let outcome: string | null;
    const started = performance.now();
    try {
      outcome = await withinSeconds(work(), job.expireInSeconds);
      options.observe?.(outcome ?? 'completed', (performance.now() - started) / 1000);
    } catch (error) {
      options.observe?.('failed', (performance.now() - started) / 1000);
      await boss.fail(queue, job.id, error as object).catch((failed: unknown) => log.warn({ queue, job: job.id, error: String(failed) }, 'failing a job failed'));
      return;
    }
    if (outcome !== null) completions.add(job.id, outcome);
  };

  let settledSinceVacuum = 0;
  let vacuuming = false;
  const vacuumAfterMany = (): void => {
    if (!options.vacuum || vacuuming || ++settledSinceVacuum < vacuumEveryJobs) return;
    settledSinceVacuum = 0;
    vacuuming = true;
    void options.vacuum()
      .catch((error: unknown) => log.warn({ queue, error: String(error) }, 'vacuuming the queue failed'))
      .finally(() => (vacuuming = false));
  };

  const freeSlot = (): void => {
    running--;
    if (running === 0) for (const resolve of idle) resolve();
    if (backlog) wake();
  };

  /** Runs a job in a slot already counted in `running`. */
  const runInSlot = (job: PgBoss.Job<unknown>, work: () => Promise<string | null>): void => {
    void settle(job, work).finally(() => {
      vacuumAfterMany();
      freeSlot();
    });
  };

  const run = (job: PgBoss.Job<unknown>): void => {
    running++;
    runInSlot(job, () => options.handle(job));
  };

  const poller = setInterval(wake, options.pollingMs);
  poller.unref();
  return {
    wake,
    reserve(wanted) {
      const taken = stopping ? 0 : Math.max(0, Math.min(wanted, concurrency - running));
      running += taken;
      return taken;
    },
    runReserved(claimed, reserved) {
      claimed.forEach(({ job, work }, i) => {
        // more than reserved cannot happen; run all the same, a claimed job left waiting would wait for its expiry
        if (i >= reserved) running++;
        runInSlot(job, work);
      });
      for (let i = claimed.length; i < reserved; i++) freeSlot();
    },
    async stop(graceMs) {
      stopping = true;
      clearInterval(poller);
      // jobs a fetch under way brings are run and waited for like the others
      await fetching;
      if (running > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          idle.add(resolve);
          timer = setTimeout(resolve, graceMs);
        });
        clearTimeout(timer);
      }
      await completions.written();
    },
  };
}

/** pg-boss's own rule for a handler: one that outlives its job's expiry fails, so the job can run again. */
async function withinSeconds<T>(work: Promise<T>, seconds: number): Promise<T> {
  // pg returns the expiry (an EXTRACT) as a numeric string
  const ms = Math.max(1, Number(seconds)) * 1000;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`handler execution exceeded ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long a finished job's completion waits for others to share its statement. A job that has finished is only
 * recorded late: a worker killed meanwhile leaves it active, and it runs again (actors are idempotent).
 */
const completionLingerMs = 10;

/** Completes jobs with their outcome as output, one statement per outcome for all that finished meanwhile. */
function completionWriter(boss: PgBoss, queue: string, log: Logger): { add(id: string, outcome: string): void; written(): Promise<void> } {
  const pending = new Map<string, string[]>();
  let writing: Promise<void> | null = null;
  let lingering: NodeJS.Timeout | null = null;
  const write = async (): Promise<void> => {
    const batches = [...pending];
    pending.clear();
    for (const [outcome, ids] of batches) {
      // a job left active is run again by the lost-job sweep or at its expiry; its actor is idempotent
      await completeJobs(boss, queue, ids, { value: outcome }).catch((error: unknown) => log.warn({ queue, jobs: ids, error: String(error) }, 'completing jobs failed'));
    }
  };
  const writeNow = (): void => {
    if (lingering) clearTimeout(lingering);
    lingering = null;
    if (writing || pending.size === 0) return;
    writing = write().finally(() => {
      writing = null;
      writeSoon();
    });
  };
  const writeSoon = (): void => {
    if (writing || lingering || pending.size === 0) return;
    lingering = setTimeout(writeNow, completionLingerMs);
  };
  return {
    add(id, outcome) {
      const ids = pending.get(outcome);
      if (ids) ids.push(id);
      else pending.set(outcome, [id]);
      writeSoon();
    },
    async written() {
      writeNow();
      while (writing) {
        await writing;
        writeNow();
      }
    },
  };
}
