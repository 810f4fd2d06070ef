import type { Deps } from './deps.js';

export interface Health {
  status: 'pass' | 'fail';
  description: string;
}

/** How long a check may take before the process counts as unable to serve. */
const checkTimeoutMs = 3_000;

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * What `GET /api/healthz` tells a load balancer: whether this process can serve now. It cannot while it is stopping
 * (`[server] DRAIN_SECONDS` keeps it serving meanwhile, so the balancer takes it out before it closes), while the
 * database does not answer, or while the blob storage cannot be reached.
 */
export async function healthOf(deps: Deps): Promise<Health> {
  if (deps.lifecycle.draining) return { status: 'fail', description: 'draining: this process is stopping' };
  try {
    await within(checkTimeoutMs, deps.db.query('SELECT 1'));
  } catch {
    return { status: 'fail', description: 'database does not answer' };
  }
  try {
    await within(checkTimeoutMs, deps.blobs.check?.() ?? Promise.resolve());
  } catch {
    return { status: 'fail', description: 'blob storage cannot be reached' };
  }
  return { status: 'pass', description: 'Hearth: database and storage answer' };
}
