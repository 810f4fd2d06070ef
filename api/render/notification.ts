import { notificationStatus } from '../../db/models/notifications/notifications.js';
import type { NotificationView } from '../../db/views/notifications.js';
import { issueApiUrl, issueHtmlUrl, repoApiUrl } from './issue.js';
import { renderRepository, type ApiRepository } from './repository.js';
import { iso } from './time.js';
import type { RenderContext } from './user.js';

export interface ApiNotificationSubject {
  title: string;
  url: string;
  latest_comment_url: string;
  html_url: string;
  latest_comment_html_url: string;
  type: 'Issue' | 'Pull' | 'Commit' | 'Repository';
  state: 'open' | 'closed' | 'merged';
}

/** NotificationThread. */
export interface ApiNotificationThread {
  id: number;
  repository: Omit<ApiRepository, 'permissions'> & { permissions: null };
  subject: ApiNotificationSubject;
  unread: boolean;
  pinned: boolean;
  updated_at: string;
  url: string;
}

/** Gitea's ToNotificationThread: the repository without permissions (nor its parent's), the subject from the issue. */
export function renderNotification({ thread, repo, issue }: NotificationView, ctx: RenderContext): ApiNotificationThread {
  const strip = (rendered: ApiRepository): ApiNotificationThread['repository'] => ({
    ...rendered,
    permissions: null,
    ...(rendered.parent ? { parent: strip(rendered.parent as ApiRepository) as unknown as ApiRepository } : {}),
  });
  const commentId = thread.comment_id;
  return {
    id: thread.id,
    repository: strip(renderRepository(repo, null, ctx)),
    subject: {
      title: issue.title,
      url: issueApiUrl(repo.repo, issue, ctx),
      latest_comment_url: commentId ? `${repoApiUrl(repo.repo, ctx)}/issues/comments/${commentId}` : '',
      html_url: issueHtmlUrl(repo.repo, issue, ctx),
      latest_comment_html_url: commentId ? `${issueHtmlUrl(repo.repo, issue, ctx)}#issuecomment-${commentId}` : '',
      type: issue.is_pull ? 'Pull' : 'Issue',
      state: issue.is_closed ? 'closed' : 'open',
    },
    unread: thread.status === notificationStatus.unread,
    pinned: thread.status === notificationStatus.pinned,
    updated_at: iso(thread.updated),
    url: `${ctx.rootUrl}api/v1/notifications/threads/${thread.id}`,
  };
}
