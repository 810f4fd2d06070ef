import type { ApiIssueCommentPayload, ApiIssuePayload, ApiPackagePayload } from '../issue-hook-payloads.js';
import type { ApiReleasePayload } from '../hook-payloads.js';

/** Gitea's services/webhook/general.go: the texts chat hooks share, with the link format of each hook type. */
export type LinkFormatter = (url: string, text: string) => string;

export const noneLinkFormatter: LinkFormatter = (_url, text) => text;

/** Go's html.EscapeString. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');
}

export const htmlLinkFormatter: LinkFormatter = (url, text) => `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`;

/** Go's url.PathEscape. */
export function pathEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Gitea's util.PathEscapeSegments. */
export const pathEscapeSegments = (path: string): string => path.split('/').map(pathEscape).join('/');

export const colors = {
  green: 0x1ac600,
  greenLight: 0xbfe5bf,
  yellow: 0xffd930,
  grey: 0x4f545c,
  purple: 0x7289da,
  orange: 0xeb6420,
  orangeLight: 0xe68d60,
  red: 0xff3232,
};

/** Go's `%x` of a colour. */
export const hex = (color: number): string => color.toString(16);

/** Short names of refs (Gitea's RefName.ShortName). */
export function shortRef(ref: string): string {
  for (const prefix of ['refs/heads/', 'refs/tags/', 'refs/remotes/', 'refs/pull/', 'refs/for/']) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}

const bySender = (appUrl: string, login: string, link: LinkFormatter): string => ` by ${link(appUrl + pathEscape(login), login)}`;

export function issuesPayloadInfo(p: ApiIssuePayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, string, string, number] {
  const repoLink = link(p.repository.html_url, p.repository.full_name);
  const issueTitle = `#${p.number} ${p.issue.title}`;
  const titleLink = link(`${p.repository.html_url}/issues/${p.number}`, issueTitle);
  let text = '';
  let color = colors.yellow;
  switch (p.action) {
    case 'opened':
      text = `[${repoLink}] Issue opened: ${titleLink}`;
      color = colors.orange;
      break;
    case 'closed':
      text = `[${repoLink}] Issue closed: ${titleLink}`;
      color = colors.red;
      break;
    case 'reopened':
      text = `[${repoLink}] Issue re-opened: ${titleLink}`;
      break;
    case 'edited':
      text = `[${repoLink}] Issue edited: ${titleLink}`;
      break;
    case 'assigned': {
      const list = (p.issue.assignees ?? []).map((u) => link(appUrl + pathEscape(u.login), u.login));
      text = `[${repoLink}] Issue assigned to ${list.join(', ')}: ${titleLink}`;
      color = colors.green;
      break;
    }
    case 'unassigned':
      text = `[${repoLink}] Issue unassigned: ${titleLink}`;
      break;
    case 'label_updated':
      text = `[${repoLink}] Issue labels updated: ${titleLink}`;
      break;
    case 'label_cleared':
      text = `[${repoLink}] Issue labels cleared: ${titleLink}`;
      break;
    case 'milestoned': {
      const milestone = p.issue.milestone;
      text = `[${repoLink}] Issue milestoned to ${link(`${p.repository.html_url}/milestone/${milestone?.id ?? 0}`, milestone?.title ?? '')}: ${titleLink}`;
      break;
    }
    case 'demilestoned':
      text = `[${repoLink}] Issue milestone cleared: ${titleLink}`;
      break;
  }
  if (withSender) text += bySender(appUrl, p.sender.login, link);
  const attachment = p.action === 'opened' || p.action === 'edited' ? p.issue.body : '';
  return [text, issueTitle, attachment, color];
}

export function issueCommentPayloadInfo(p: ApiIssueCommentPayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, string, number] {
  const repoLink = link(p.repository.html_url, p.repository.full_name);
  const issueTitle = `#${p.issue.number} ${p.issue.title}`;
  const type = p.is_pull ? 'pull request' : 'issue';
  const titleLink = link(p.is_pull ? p.comment.pull_request_url : p.comment.issue_url, issueTitle);
  let text = '';
  let color = colors.yellow;
  switch (p.action) {
    case 'created':
      text = `[${repoLink}] New comment on ${type} ${titleLink}`;
      color = p.is_pull ? colors.greenLight : colors.orangeLight;
      break;
    case 'edited':
      text = `[${repoLink}] Comment edited on ${type} ${titleLink}`;
      break;
    case 'deleted':
      text = `[${repoLink}] Comment deleted on ${type} ${titleLink}`;
      color = colors.red;
      break;
  }
  if (withSender) text += bySender(appUrl, p.sender.login, link);
  return [text, issueTitle, color];
}

export function releasePayloadInfo(p: ApiReleasePayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, number] {
  const repoLink = link(p.repository.html_url, p.repository.full_name);
  const refLink = link(`${p.repository.html_url}/releases/tag/${pathEscapeSegments(p.release.tag_name)}`, p.release.tag_name);
  const [verb, color] = p.action === 'published' ? ['created', colors.green] : p.action === 'updated' ? ['updated', colors.yellow] : ['deleted', colors.red];
  let text = `[${repoLink}] Release ${verb}: ${refLink}`;
  if (withSender) text += bySender(appUrl, p.sender.login, link);
  return [text, color];
}

export function packagePayloadInfo(p: ApiPackagePayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, number] {
  const refLink = link(p.package.html_url, `${p.package.name}:${p.package.version}`);
  let text = p.action === 'created' ? `Package created: ${refLink}` : `Package deleted: ${refLink}`;
  if (withSender) text += bySender(appUrl, p.sender.login, link);
  return [text, p.action === 'created' ? colors.green : colors.red];
}

/** Feishu's texts (Gitea's getIssuesInfo and getIssuesCommentInfo). */
export function issuesInfo(p: ApiIssuePayload): { title: string; link: string; by: string; operator: string; result: string; assignees: string } {
  const list = (p.issue.assignees ?? []).map((u) => u.login);
  let result = '';
  if (p.action === 'assigned') result = `${p.sender.login} assign this to ${list[list.length - 1] ?? ''}`;
  else if (p.action === 'unassigned') result = `${p.sender.login} unassigned this for someone`;
  else if (p.action === 'milestoned') result = `${p.repository.html_url}/milestone/${p.issue.milestone?.id ?? 0}`;
  return {
    title: `[Issue-${p.repository.full_name} #${p.issue.number}]: ${p.action}`,
    link: p.issue.html_url,
    by: `Issue by ${p.issue.user.login}`,
    operator: `Operator: ${p.sender.login}`,
    result,
    assignees: list.length ? `Assignees: ${list.join(', ')}` : '',
  };
}

export function issuesCommentInfo(p: ApiIssueCommentPayload): { title: string; link: string; by: string; operator: string } {
  return {
    title: `[Issue Comment-${p.repository.full_name} #${p.issue.number}]: ${p.action}`,
    link: p.issue.html_url,
    by: `Issue by ${p.issue.user.login}`,
    operator: `Operator: ${p.sender.login}`,
  };
}
