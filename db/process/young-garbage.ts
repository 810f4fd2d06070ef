import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How many bytes of streamed chunks may become garbage between two young collections. */
const collectEvery = 8 * 1024 * 1024;

/**
 * Keeps the chunks of a streamed body from piling up. Node copies every chunk a socket or a file gives into a new
 * buffer, and V8 frees young buffers only at a young collection, which it starts for their sake only once 32 MiB of
 * them wait (twice its largest semi-space); a body streamed at full speed allocates too little else to start one
 * sooner. So every large upload would grow the process by 32 MiB of dead chunks. Told of each chunk that went
 * through, this starts a young collection (about a millisecond) every 8 MiB instead.
 */
export class YoungGarbage {
  private pending = 0;

  constructor(private readonly collect: (() => void) | null = exposeYoungCollection()) {}

  /** `bytes` of chunks went through and are garbage now (or soon). */
  passed(bytes: number): void {
    if (!this.collect) return;
    this.pending += bytes;
    if (this.pending < collectEvery) return;
    this.pending = 0;
    this.collect();
  }
}

/**
 * V8's `gc` function, reached the way test runners reach it: the flag exposes it in contexts created afterwards.
 * Null where that fails; the chunks are then left to V8's own pace.
 */
function exposeYoungCollection(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc !== 'function') return null;
    return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' });
  } catch {
    return null;
  }
}
