import type { BlobStore } from '../../../blob-store.js';
import type { Store } from '../../../data-source.js';
import type { GitStore } from '../../../git/store.js';

/** A long piece of work reports its progress here; the command line draws it as a bar on a terminal. */
export interface Progress {
  start(total: number): void;
  increment(): void;
  stop(): void;
}

export const noProgress: Progress = { start: () => undefined, increment: () => undefined, stop: () => undefined };

/** What a check reads and repairs: the database and queue, the git store, the blob store, the data directory. */
export interface DoctorContext {
  store: Pick<Store, 'ds' | 'boss' | 'db'>;
  git: GitStore;
  blobs: BlobStore;
  dataDir: string;
  progress: Progress;
}

/** One problem a check found: what it concerns, and what is wrong, as an operator reads it. */
export interface Finding {
  subject: string;
  problem: string;
}

/**
 * One check of `hearth doctor`: `find` reads and changes nothing; `fix` repairs what `find` found (idempotently:
 * something already repaired is left alone) and answers how many it repaired, after which `find` finds none of them.
 */
export interface DoctorCheck<F extends Finding = Finding> {
  name: string;
  /** What it checks, in a few words. */
  title: string;
  find(ctx: DoctorContext): Promise<F[]>;
  fix(ctx: DoctorContext, findings: F[]): Promise<number>;
}

/** Runs `work` for each item with the progress shown. */
export async function eachWithProgress<T>(ctx: DoctorContext, items: T[], work: (item: T) => Promise<void>): Promise<void> {
  ctx.progress.start(items.length);
  try {
    for (const item of items) {
      await work(item);
      ctx.progress.increment();
    }
  } finally {
    ctx.progress.stop();
  }
}
