import type { Queryable } from '../../../data-source.js';
import { notificationStatus } from '../../notifications/notifications.js';

/** Removes notifications read (and not touched since) more than `olderThanSeconds` ago; unread and pinned ones stay. */
export async function deleteOldReadNotifications(db: Queryable, olderThanSeconds: number): Promise<number> {
  const rows = await db.query<{ id: number }>(
    `DELETE FROM notification WHERE status = $1 AND updated < now() - $2 * interval '1 second' RETURNING id`,
    [notificationStatus.read, olderThanSeconds],
  );
  return rows.length;
}
