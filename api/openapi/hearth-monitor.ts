/** Definitions of Hearth's own operator answers: the queue monitor and the mirror monitor (tag `hearth`). */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const int = { type: 'integer', format: 'int64' };
const str = { type: 'string' };
const bool = { type: 'boolean' };
const seconds = { type: 'number', format: 'double', 'x-nullable': true };
const nullableTime = { type: 'string', format: 'date-time', 'x-nullable': true };

export const hearthMonitorDefinitions: Record<string, Schema> = {
  HearthQueue: {
    description: "A job queue: its live jobs by state, its work of the last hour, and how long its oldest job that may start now has waited",
    type: 'object',
    properties: {
      name: str,
      counts: ref('HearthQueueCounts'),
      last_hour: ref('HearthQueueHour'),
      oldest_waiting_seconds: seconds,
      workers: { type: 'array', items: ref('HearthQueueWorker') },
    },
  },
  HearthQueueWorker: {
    description: 'A live worker process subscribed to the queue (its heartbeat is recent and its lock held)',
    type: 'object',
    properties: {
      host: str, pid: int, worker_id: int, actors: { type: 'array', items: str }, concurrency: int,
      started_at: { type: 'string', format: 'date-time' }, last_heartbeat: { type: 'string', format: 'date-time' },
    },
  },
  HearthQueueCounts: { description: "A queue's live jobs by state", type: 'object', properties: { created: int, retry: int, active: int } },
  HearthQueueHour: {
    description: "A queue's jobs that ended in the last hour, by how, and the run time of those completed",
    type: 'object',
    properties: { completed: int, failed: int, cancelled: int, mean_run_seconds: seconds, p99_run_seconds: seconds },
  },
  HearthQueueList: { description: 'HearthQueueList', type: 'array', items: ref('HearthQueue') },
  HearthQueueJob: {
    description: 'A job of a queue; its payload has every credential removed',
    type: 'object',
    properties: {
      id: str, state: { type: 'string', enum: ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] }, attempts: int, retry_limit: int,
      created_at: { type: 'string', format: 'date-time' }, started_at: nullableTime, completed_at: nullableTime,
      last_error: { type: 'string', 'x-nullable': true }, payload: { type: 'object' },
    },
  },
  HearthQueueJobList: { description: 'HearthQueueJobList', type: 'array', items: ref('HearthQueueJob') },
  HearthRetried: { description: 'The ids of the jobs sent back to run', type: 'object', properties: { retried: { type: 'array', items: str } } },
  HearthDeleted: { description: 'How many jobs were removed', type: 'object', properties: { deleted: int } },
  HearthMirrorStatus: {
    description: 'A pull or push mirror as an operator watches it: its last sync, when it is due, and whether a sync is queued or running',
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['pull', 'push'] }, push_mirror_id: { ...int, 'x-nullable': true }, repository: str, remote_address: str,
      interval_seconds: int, last_sync: nullableTime, last_attempt: nullableTime, last_sync_duration_seconds: seconds,
      last_outcome: { type: 'string', enum: ['succeeded', 'failed'], 'x-nullable': true }, failed_syncs: int, last_error: str, next_due: nullableTime, running: bool, queued: bool, overdue: bool, failing: bool,
    },
  },
  HearthMirrorStatusList: { description: 'HearthMirrorStatusList', type: 'array', items: ref('HearthMirrorStatus') },
};
