import pg from 'pg';

/**
 * Waits until no job is waiting or running: a worker started for one figure first works off what earlier figures
 * queued (the issue creation figure alone queues thousands of `notify` jobs), which would otherwise be measured with it.
 */
export async function waitForQueuesDrained(databaseUrl: string, timeoutMs = 600_000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const { rows } = await client.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pgboss.job WHERE state IN ('created', 'retry', 'active') AND start_after <= now()`,
      );
      if (rows[0].waiting === 0) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].waiting} jobs still queued after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.end();
  }
}
