import {
  hex, issueCommentPayloadInfo, issuesPayloadInfo, packagePayloadInfo, pathEscapeSegments, pullRequestPayloadInfo, releasePayloadInfo, reviewVerdict, shortRef,
  wikiPayloadInfo,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface SlackAttachment { fallback: string; color: string; title: string; title_link: string; text: string }
interface SlackPayload {
  channel: string; text: string; username: string; icon_url: string; unfurl_links: number; link_names: number;
  attachments: SlackAttachment[] | null;
}

/** Gitea's SlackTextFormatter: &, < and > escaped. */
const slackText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const slackShortText = (s: string): string => slackText(s.split('\n')[0]);
export const slackLink = (url: string, text: string): string => `<${url}|${slackText(text)}>`;

const objectId = /^[0-9a-f]{40}$/;
/** Gitea's git.RefURL. */
function refUrl(repoUrl: string, ref: string): string {
  const name = pathEscapeSegments(shortRef(ref));
  if (ref.startsWith('refs/heads/')) return `${repoUrl}/src/branch/${name}`;
  if (ref.startsWith('refs/tags/')) return `${repoUrl}/src/tag/${name}`;
  if (!objectId.test(ref)) return `${repoUrl}/src/branch/${name}`;
  return `${repoUrl}/src/commit/${name}`;
}
const slackLinkToRef = (repoUrl: string, ref: string): string => slackLink(refUrl(repoUrl, ref), shortRef(ref));

/** Gitea's services/webhook/slack.go; the hook's meta holds channel, username, icon_url and color. */
export function slackConvertor({ appUrl, meta }: FormatContext): Convertor<SlackPayload> {
  const payload = (text: string, attachments: SlackAttachment[] | null): SlackPayload => ({
    channel: meta.channel ?? '', text, username: meta.username ?? '', icon_url: meta.icon_url ?? '', unfurl_links: 0, link_names: 0, attachments,
  });
  const attachment = (color: string, title: string, titleLink: string, text: string): SlackAttachment => ({ fallback: '', color, title, title_link: titleLink, text });
  return {
    create: (p) => payload(`[${slackLink(p.repository.html_url, p.repository.full_name)}:${slackLinkToRef(p.repository.html_url, p.ref)}] ${p.ref_type} created by ${p.sender.login}`, null),
    delete: (p) => payload(`[${slackLink(p.repository.html_url, p.repository.full_name)}:${shortRef(p.ref)}] ${p.ref_type} deleted by ${p.sender.login}`, null),
    fork: (p) => payload(`${slackLink(p.forkee.html_url, p.forkee.full_name)} is forked to ${slackLink(p.repository.html_url, p.repository.full_name)}`, null),
    issue(p) {
      const [text, title, extra, color] = issuesPayloadInfo(p, slackLink, true, appUrl);
      return payload(text, extra ? [attachment(hex(color), slackText(title), p.issue.html_url, slackText(extra))] : null);
    },
    issueComment(p) {
      const [text, title, color] = issueCommentPayloadInfo(p, slackLink, true, appUrl);
      return payload(text, [attachment(hex(color), title, p.comment.html_url, slackText(p.comment.body))]);
    },
    pullRequest(p) {
      const [text, title, extra, color] = pullRequestPayloadInfo(p, slackLink, true, appUrl);
      return payload(text, extra ? [attachment(hex(color), slackText(title), p.pull_request.html_url, slackText(p.pull_request.body))] : null);
    },
    review(p, event) {
      const sender = slackLink(appUrl + p.sender.login, p.sender.login);
      const repo = slackLink(p.repository.html_url, p.repository.full_name);
      const text = p.action === 'reviewed'
        ? `[${repo}] Pull request review ${reviewVerdict[event]}: [#${p.number} ${p.pull_request.title}](${p.repository.html_url}/pulls/${p.number}) by ${sender}`
        : '';
      return payload(text, null);
    },
    wiki: (p) => payload(wikiPayloadInfo(p, slackLink, true, appUrl)[0], null),
    release: (p) => payload(releasePayloadInfo(p, slackLink, true, appUrl)[0], null),
    package: (p) => payload(packagePayloadInfo(p, slackLink, true, appUrl)[0], null),
    push(p) {
      const desc = p.total_commits === 1 ? '1 new commit' : `${p.total_commits} new commits`;
      const commitString = p.compare_url ? slackLink(p.compare_url, desc) : desc;
      const text = `[${slackLink(p.repository.html_url, p.repository.full_name)}:${slackLinkToRef(p.repository.html_url, p.ref)}] ${commitString} pushed by ${p.pusher.login}`;
      const lines = p.commits.map((c) => `${slackLink(c.url, c.id.slice(0, 7))}: ${slackShortText(c.message)} - ${slackText(c.author.name)}`);
      return payload(text, [attachment(meta.color ?? '', p.repository.html_url, p.repository.html_url, lines.join('\n'))]);
    },
    repository(p) {
      const sender = slackLink(appUrl + p.sender.login, p.sender.login);
      const repo = slackLink(p.repository.html_url, p.repository.full_name);
      return payload(`[${repo}] Repository ${p.action} by ${sender}`, null);
    },
  };
}

