import type { Queryable } from '../../../data-source.js';

export interface HookTaskCleanup {
  /** Gitea's CLEANUP_TYPE: delivered tasks older than `olderThanSeconds`, or all but each hook's `numberToKeep` newest. */
  type: 'OlderThan' | 'PerWebhook';
  olderThanSeconds: number;
  numberToKeep: number;
}

/** Gitea's cleanup_hook_task_table: removes delivered hook tasks (never one still waiting for delivery). Answers how many. */
export async function cleanupHookTasks(db: Queryable, rule: HookTaskCleanup): Promise<number> {
  const rows = rule.type === 'OlderThan'
    ? await db.query<{ id: number }>(
      `DELETE FROM hook_task WHERE is_delivered AND delivered < now() - $1 * interval '1 second' RETURNING id`, [rule.olderThanSeconds])
    : await db.query<{ id: number }>(
      `DELETE FROM hook_task t USING (
         SELECT id, row_number() OVER (PARTITION BY hook_id ORDER BY id DESC) AS n FROM hook_task WHERE is_delivered
       ) ranked
       WHERE t.id = ranked.id AND ranked.n > $1 RETURNING t.id`, [rule.numberToKeep]);
  return rows.length;
}
