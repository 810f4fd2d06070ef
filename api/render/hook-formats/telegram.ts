import {
  escapeHtml, htmlLinkFormatter as link, issueCommentPayloadInfo, issuesPayloadInfo, packagePayloadInfo, pathEscapeSegments, pullRequestPayloadInfo,
  releasePayloadInfo, reviewVerdict, shortRef, wikiPayloadInfo, pushSummary,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface TelegramPayload { text: string; parse_mode: 'HTML'; disable_web_page_preview: boolean }

const message = (text: string): TelegramPayload => ({ text: text.trim(), parse_mode: 'HTML', disable_web_page_preview: true });

/** Gitea's services/webhook/telegram.go: HTML messages; the chat is named in the hook's URL (`sendMessage?chat_id=`). */
export function telegramConvertor({ appUrl }: FormatContext): Convertor<TelegramPayload> {
  const repoLink = (r: { html_url: string; full_name: string }): string => link(r.html_url, r.full_name);
  const refLink = (repoUrl: string, ref: string): string => link(`${repoUrl}/src/${pathEscapeSegments(shortRef(ref))}`, shortRef(ref));
  return {
    create: (p) => message(`[${repoLink(p.repository)}] ${escapeHtml(p.ref_type)} ${refLink(p.repository.html_url, p.ref)} created`),
    delete: (p) => message(`[${repoLink(p.repository)}] ${escapeHtml(p.ref_type)} ${refLink(p.repository.html_url, p.ref)} deleted`),
    fork: (p) => message(`${escapeHtml(p.forkee.full_name)} is forked to ${repoLink(p.repository)}`),
    push(p) {
      const { branch, titleLink, count } = pushSummary(p);
      const title = `[${repoLink(p.repository)}:${link(titleLink, branch)}] ${count}`;
      const lines = p.commits.map((c) => `[${link(c.url, c.id.slice(0, 7))}] ${escapeHtml(c.message.replace(/[\r\n]+$/, ''))} - ${escapeHtml(c.author.name)}`);
      return message(`${title}\n${lines.join('\n')}`);
    },
    issue(p) {
      const [text, , extra] = issuesPayloadInfo(p, link, true, appUrl);
      return message(`${text}\n\n${escapeHtml(extra)}`);
    },
    issueComment(p) {
      const [text] = issueCommentPayloadInfo(p, link, true, appUrl);
      return message(`${text}\n${escapeHtml(p.comment.body)}`);
    },
    pullRequest(p) {
      const [text, , extra] = pullRequestPayloadInfo(p, link, true, appUrl);
      return message(`${text}\n${escapeHtml(extra)}`);
    },
    review(p, event) {
      const text = p.action === 'reviewed'
        ? `[${escapeHtml(p.repository.full_name)}] Pull request review ${escapeHtml(reviewVerdict[event])}: #${p.number} ${escapeHtml(p.pull_request.title)}`
        : '';
      return message(`${text}\n${escapeHtml(p.action === 'reviewed' ? p.review?.content ?? '' : '')}`);
    },
    wiki: (p) => message(wikiPayloadInfo(p, link, true, appUrl)[0]),
    repository: (p) => message(p.action === 'created'
      ? `[${repoLink(p.repository)}] Repository created`
      : `[${escapeHtml(p.repository.full_name)}] Repository deleted`),
    release: (p) => message(releasePayloadInfo(p, link, true, appUrl)[0]),
    package: (p) => message(packagePayloadInfo(p, link, true, appUrl)[0]),
  };
}
