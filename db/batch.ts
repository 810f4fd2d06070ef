/**
 * One statement for calls made at the same time (DataLoader's batching): calls made in the same tick, or while
 * the previous statement of this batcher runs, go to `run` together. For hot paths where many jobs of one process
 * run the same query at once, such as the deliveries of a fan-out. `run` answers one result per input, in order;
 * if it throws, every call of that batch throws. With `keyOf`, two calls with the same key never share a
 * statement: the later one waits for the next.
 */
export function batched<I, O>(run: (inputs: I[]) => Promise<O[]>, keyOf?: (input: I) => unknown): (input: I) => Promise<O> {
  interface Call {
    input: I;
    resolve(output: O): void;
    reject(error: unknown): void;
  }
  let waiting: Call[] = [];
  let running = false;
  let scheduled = false;

  const take = (): Call[] => {
    if (!keyOf) {
      const all = waiting;
      waiting = [];
      return all;
    }
    const keys = new Set<unknown>();
    const now: Call[] = [];
    const later: Call[] = [];
    for (const call of waiting) {
      const key = keyOf(call.input);
      if (keys.has(key)) later.push(call);
      else {
        keys.add(key);
        now.push(call);
      }
    }
    waiting = later;
    return now;
  };

  const flush = async (): Promise<void> => {
    scheduled = false;
    if (running || waiting.length === 0) return;
    const batch = take();
    running = true;
    try {
      const outputs = await run(batch.map((call) => call.input));
      batch.forEach((call, i) => call.resolve(outputs[i]));
    } catch (error) {
      for (const call of batch) call.reject(error);
    } finally {
      running = false;
      schedule();
    }
  };

  const schedule = (): void => {
    if (scheduled || running || waiting.length === 0) return;
    scheduled = true;
    queueMicrotask(() => void flush());
  };

  return (input) => new Promise<O>((resolve, reject) => {
    waiting.push({ input, resolve, reject });
    schedule();
  });
}

/** One batcher per database handle (a process's pool reader), made on first use. */
export function batchedPerDb<D extends object, I, O>(make: (db: D) => (input: I) => Promise<O>): (db: D, input: I) => Promise<O> {
  const made = new WeakMap<D, (input: I) => Promise<O>>();
  return (db, input) => {
    let call = made.get(db);
    if (!call) {
      call = make(db);
      made.set(db, call);
    }
    return call(input);
  };
}
