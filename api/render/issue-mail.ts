import type { IssueRow } from '../../db/models/issues/issue-row.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { issueHtmlUrl } from './issue.js';
import type { RenderContext } from './user.js';

/** One mail with its plain-text and HTML parts (what a `mail` job carries). */
export interface IssueMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** What happened to the issue, as the mail tells it. */
export type IssueMailAction =
  | { kind: 'opened' }
  | { kind: 'commented'; body: string; commentId: number }
  | { kind: 'closed' }
  | { kind: 'reopened' }
  | { kind: 'assigned' };

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * One issue mail to one recipient, as Gitea's mailer composes it: `[owner/repo] title (#index)` for a new issue
 * and an assignment, with `Re: ` for what follows; a plain-text and an HTML part with a link to the issue.
 */
export function renderIssueMail(
  to: UserRow, doer: UserRow, repo: RepoRow, issue: IssueRow, action: IssueMailAction, ctx: RenderContext,
): IssueMail {
  const noun = issue.is_pull ? 'pull request' : 'issue';
  const base = `[${repo.owner_name}/${repo.name}] ${issue.title} (#${issue.index})`;
  const subject = action.kind === 'opened' || action.kind === 'assigned' ? base : `Re: ${base}`;
  let link = issueHtmlUrl(repo, issue, ctx);
  let lines: string[];
  switch (action.kind) {
    case 'opened':
      lines = [`@${doer.name} opened ${noun} #${issue.index}.`, '', issue.content];
      break;
    case 'commented':
      link += `#issuecomment-${action.commentId}`;
      lines = [`@${doer.name} commented on ${noun} #${issue.index}.`, '', action.body];
      break;
    case 'closed':
      lines = [`@${doer.name} closed ${noun} #${issue.index}.`];
      break;
    case 'reopened':
      lines = [`@${doer.name} reopened ${noun} #${issue.index}.`];
      break;
    case 'assigned':
      lines = [`@${doer.name} assigned you to the ${noun} #${issue.index} in ${repo.owner_name}/${repo.name}.`];
      break;
  }
  const text = [...lines, '', `View it on Hearth: ${link}`, ''].join('\n');
  const html = `<html><body>${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}<p><a href="${escapeHtml(link)}">View it on Hearth</a>.</p></body></html>`;
  return { to: [to.email], subject, text, html };
}
