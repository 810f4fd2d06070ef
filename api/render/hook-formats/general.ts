import type { ApiIssueCommentPayload, ApiIssuePayload, ApiPackagePayload } from '../issue-hook-payloads.js';
import type { ApiPushPayload, ApiReleasePayload, ApiWikiPayload } from '../hook-payloads.js';
import type { ApiPullRequestPayload } from '../pull-payloads.js';
import type { ReviewEventType } from './convertor.js';

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

/**
 * What the chat formats say of a push (Gitea's per-type PushHook): the branch, the link of the title (the commit, the
 * compare view, or the branch when neither is known) and `N new commits`.
 */
export function pushSummary(p: ApiPushPayload, escapeBranch: (branch: string) => string = pathEscapeSegments): { branch: string; titleLink: string; count: string } {
  const branch = shortRef(p.ref);
  const one = p.total_commits === 1;
  const titleLink = (one ? p.commits[0]?.url : p.compare_url) || `${p.repository.html_url}/src/${escapeBranch(branch)}`;
  return { branch, titleLink, count: one ? '1 new commit' : `${p.total_commits} new commits` };
}

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

/** Gitea's getPullRequestPayloadInfo: the message, the title, the attached text and the colour of a pull request event. */
export function pullRequestPayloadInfo(p: ApiPullRequestPayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, string, string, number] {
  const pr = p.pull_request;
  const repoLink = link(p.repository.html_url, p.repository.full_name);
  const issueTitle = `#${p.number} ${pr.title}`;
  const titleLink = link(pr.url, issueTitle);
  let text = '';
  let attachment = '';
  let color = colors.yellow;
  switch (p.action) {
    case 'opened':
      text = `[${repoLink}] Pull request opened: ${titleLink}`;
      attachment = pr.body;
      color = colors.green;
      break;
    case 'closed':
      [text, color] = pr.merged
        ? [`[${repoLink}] Pull request merged: ${titleLink}`, colors.purple]
        : [`[${repoLink}] Pull request closed: ${titleLink}`, colors.red];
      break;
    case 'reopened':
      text = `[${repoLink}] Pull request re-opened: ${titleLink}`;
      break;
    case 'edited':
      text = `[${repoLink}] Pull request edited: ${titleLink}`;
      attachment = pr.body;
      break;
    case 'assigned': {
      const list = (pr.assignees ?? []).map((u) => link(appUrl + u.login, u.login));
      text = `[${repoLink}] Pull request assigned to ${list.join(', ')}: ${titleLink}`;
      color = colors.green;
      break;
    }
    case 'unassigned':
      text = `[${repoLink}] Pull request unassigned: ${titleLink}`;
      break;
    case 'label_updated':
      text = `[${repoLink}] Pull request labels updated: ${titleLink}`;
      break;
    case 'label_cleared':
      text = `[${repoLink}] Pull request labels cleared: ${titleLink}`;
      break;
    case 'synchronized':
      text = `[${repoLink}] Pull request synchronized: ${titleLink}`;
      break;
    case 'milestoned': {
      const milestone = pr.milestone;
      text = `[${repoLink}] Pull request milestoned to ${link(`${p.repository.html_url}/milestone/${milestone?.id ?? 0}`, milestone?.title ?? '')}: ${titleLink}`;
      break;
    }
    case 'demilestoned':
      text = `[${repoLink}] Pull request milestone cleared: ${titleLink}`;
      break;
    case 'reviewed':
      text = `[${repoLink}] Pull request reviewed: ${titleLink}`;
      attachment = p.review?.content ?? '';
      break;
    // review_requested and review_request_removed have no text of their own in Gitea: only the sender follows
  }
  if (withSender) text += ` by ${link(appUrl + p.sender.login, p.sender.login)}`;
  return [text, issueTitle, attachment, color];
}

/** Gitea's parseHookPullRequestEventType: the verdict a review event names. */
export const reviewVerdict: Record<ReviewEventType, string> = {
  pull_request_review_approved: 'approved',
  pull_request_review_rejected: 'rejected',
  pull_request_review_comment: 'comment',
};

/** Gitea's review colours (discord, msteams). */
export const reviewColor: Record<ReviewEventType, number> = {
  pull_request_review_approved: colors.green,
  pull_request_review_rejected: colors.red,
  pull_request_review_comment: colors.grey,
};

/**
 * The plain review title most convertors share: `[owner/repo] Pull request review approved: #1 title`; dingtalk,
 * feishu and wechatwork put a space before the colon.
 */
export function reviewTitle(p: ApiPullRequestPayload, event: ReviewEventType, spacedColon = false): string {
  return `[${p.repository.full_name}] Pull request review ${reviewVerdict[event]}${spacedColon ? ' :' : ':'} #${p.number} ${p.pull_request.title}`;
}

/** Gitea's getWikiPayloadInfo: the message, its colour and the page's link. */
export function wikiPayloadInfo(p: ApiWikiPayload, link: LinkFormatter, withSender: boolean, appUrl: string): [string, number, string] {
  const repoLink = link(p.repository.html_url, p.repository.full_name);
  const pageLink = link(wikiPageUrl(p), p.page);
  let [text, color] = p.action === 'created'
    ? [`[${repoLink}] New wiki page '${pageLink}'`, colors.green]
    : p.action === 'edited'
      ? [`[${repoLink}] Wiki page '${pageLink}' edited`, colors.yellow]
      : [`[${repoLink}] Wiki page '${pageLink}' deleted`, colors.red];
  if (p.action !== 'deleted' && p.comment !== '') text += ` (${p.comment})`;
  if (withSender) text += bySender(appUrl, p.sender.login, link);
  return [text, color, pageLink];
}

export const wikiPageUrl = (p: ApiWikiPayload): string => `${p.repository.html_url}/wiki/${pathEscape(p.page)}`;

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

/** Feishu's texts of a pull request (Gitea's getPullRequestInfo): a merged one's action reads `merged`. */
export function pullRequestInfo(p: ApiPullRequestPayload): { action: string; title: string; link: string; by: string; operator: string; result: string; assignees: string } {
  const pr = p.pull_request;
  const action = pr.merged ? 'merged' : p.action;
  const list = (pr.assignees ?? []).map((u) => u.login);
  let result = '';
  if (action === 'assigned') result = `${p.sender.login} assign this to ${list[list.length - 1] ?? ''}`;
  else if (action === 'unassigned') result = `${p.sender.login} unassigned this for someone`;
  else if (action === 'milestoned') result = `${p.repository.html_url}/milestone/${pr.milestone?.id ?? 0}`;
  return {
    action,
    title: `[PullRequest-${p.repository.full_name} #${pr.number}]: ${action}`,
    link: pr.html_url,
    by: `PullRequest by ${pr.user.login}`,
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
