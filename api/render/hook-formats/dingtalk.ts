import {
  issueCommentPayloadInfo, issuesPayloadInfo, noneLinkFormatter, packagePayloadInfo, pullRequestPayloadInfo, releasePayloadInfo, reviewTitle, shortRef,
  wikiPageUrl, wikiPayloadInfo, pushSummary,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

/** lunny/dingtalk_webhook's Payload, as Gitea sends it. */
interface DingtalkPayload {
  msgtype: string;
  text: { content: string };
  link: { title: string; text: string; picUrl: string; messageUrl: string };
  markdown: { title: string; text: string };
  actionCard: { text: string; title: string; hideAvatar: string; btnOrientation: string; singleTitle: string; singleURL: string; btns: null };
  at: { atMobiles: null; isAtAll: boolean };
}

function base(msgtype: string): DingtalkPayload {
  return {
    msgtype,
    text: { content: '' },
    link: { title: '', text: '', picUrl: '', messageUrl: '' },
    markdown: { title: '', text: '' },
    actionCard: { text: '', title: '', hideAvatar: '', btnOrientation: '', singleTitle: '', singleURL: '', btns: null },
    at: { atMobiles: null, isAtAll: false },
  };
}

/** Go's url.QueryEscape. */
const queryEscape = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');

/** An action card whose button opens the link in the browser rather than inside DingTalk. */
function card(title: string, text: string, singleTitle: string, singleUrl: string): DingtalkPayload {
  const p = base('actionCard');
  p.actionCard = {
    ...p.actionCard,
    text: text.trim(), title: title.trim(), hideAvatar: '0', singleTitle,
    singleURL: `dingtalk://dingtalkclient/page/link?pc_slide=false&url=${queryEscape(singleUrl)}`,
  };
  return p;
}

/** Gitea's services/webhook/dingtalk.go. */
export function dingtalkConvertor({ appUrl }: FormatContext): Convertor<DingtalkPayload> {
  return {
    create(p) {
      const ref = shortRef(p.ref);
      const title = `[${p.repository.full_name}] ${p.ref_type} ${ref} created`;
      return card(title, title, `view ref ${ref}`, `${p.repository.html_url}/src/${ref}`);
    },
    delete(p) {
      const ref = shortRef(p.ref);
      const title = `[${p.repository.full_name}] ${p.ref_type} ${ref} deleted`;
      return card(title, title, `view ref ${ref}`, `${p.repository.html_url}/src/${ref}`);
    },
    fork(p) {
      const title = `${p.forkee.full_name} is forked to ${p.repository.full_name}`;
      return card(title, title, `view forked repo ${p.repository.full_name}`, p.repository.html_url);
    },
    push(p) {
      const { branch, titleLink, count } = pushSummary(p, (name) => name);
      const ids = p.commits.map((c) => c.id.slice(0, 7));
      const linkText = p.total_commits === 1 ? `view commit ${ids[0] ?? ''}` : `view commit ${ids[0] ?? ''}...${ids[ids.length - 1] ?? ''}`;
      const title = `[${p.repository.full_name}:${branch}] ${count}`;
      const text = p.commits.map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${c.message.replace(/[\r\n]+$/, '')} - ${c.author.name}`).join('\r\n');
      return card(title, text, linkText, titleLink);
    },
    issue(p) {
      const [text, title, extra] = issuesPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(title, `${text}\r\n\r\n${extra}`, 'view issue', p.issue.html_url);
    },
    issueComment(p) {
      const [text, title] = issueCommentPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(title, `${text}\r\n\r\n${p.comment.body}`, 'view issue comment', p.comment.html_url);
    },
    pullRequest(p) {
      const [text, title, extra] = pullRequestPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(title, `${text}\r\n\r\n${extra}`, 'view pull request', p.pull_request.html_url);
    },
    review(p, event) {
      const [title, text] = p.action === 'reviewed' ? [reviewTitle(p, event, true), p.review?.content ?? ''] : ['', ''];
      return card(title, `${title}\r\n\r\n${text}`, 'view pull request', p.pull_request.html_url);
    },
    wiki(p) {
      const [text] = wikiPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(text, text, 'view wiki', wikiPageUrl(p));
    },
    repository(p) {
      const title = `[${p.repository.full_name}] Repository ${p.action}`;
      if (p.action === 'created') return card(title, title, 'view repository', p.repository.html_url);
      const text = base('text');
      text.text.content = title;
      return text;
    },
    release(p) {
      const [text] = releasePayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(text, text, 'view release', p.release.html_url);
    },
    package(p) {
      const [text] = packagePayloadInfo(p, noneLinkFormatter, true, appUrl);
      return card(text, text, 'view package', p.package.html_url);
    },
  };
}
