import type { ApiUser } from '../user.js';
import {
  colors, issueCommentPayloadInfo, issuesPayloadInfo, noneLinkFormatter, packagePayloadInfo, pathEscapeSegments, pullRequestPayloadInfo, releasePayloadInfo,
  reviewColor, reviewTitle, shortRef, wikiPageUrl, wikiPayloadInfo, pushSummary,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface DiscordEmbed {
  title: string; description: string; url: string; color: number; footer: { text: string };
  author: { name: string; url: string; icon_url: string }; fields: null;
}
interface DiscordPayload { wait: boolean; content: string; username: string; avatar_url: string; tts: boolean; embeds: DiscordEmbed[] }

/** A commit's message as Discord shows it: 50 characters at most, as GitHub does. */
function summary(message: string): string {
  const line = message.replace(/\r+$/, '');
  return [...line].length > 50 ? `${[...line].slice(0, 47).join('')}...` : line;
}

/** Gitea's services/webhook/discord.go; the hook's meta may hold username and icon_url. */
export function discordConvertor({ appUrl, meta }: FormatContext): Convertor<DiscordPayload> {
  const payload = (sender: ApiUser, title: string, text: string, url: string, color: number): DiscordPayload => ({
    wait: false,
    content: '',
    username: meta.username ?? '',
    avatar_url: meta.icon_url ?? '',
    tts: false,
    embeds: [{
      title, description: text, url, color, footer: { text: '' },
      author: { name: sender.login, url: appUrl + sender.login, icon_url: sender.avatar_url }, fields: null,
    }],
  });
  return {
    create(p) {
      const ref = shortRef(p.ref);
      return payload(p.sender, `[${p.repository.full_name}] ${p.ref_type} ${ref} created`, '', `${p.repository.html_url}/src/${pathEscapeSegments(ref)}`, colors.green);
    },
    delete(p) {
      const ref = shortRef(p.ref);
      return payload(p.sender, `[${p.repository.full_name}] ${p.ref_type} ${ref} deleted`, '', `${p.repository.html_url}/src/${pathEscapeSegments(ref)}`, colors.red);
    },
    fork: (p) => payload(p.sender, `${p.forkee.full_name} is forked to ${p.repository.full_name}`, '', p.repository.html_url, colors.green),
    push(p) {
      const { branch, titleLink, count } = pushSummary(p);
      const title = `[${p.repository.full_name}:${branch}] ${count}`;
      const text = p.commits.map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${summary(c.message)} - ${c.author.name}`).join('\n');
      return payload(p.sender, title, text, titleLink, colors.green);
    },
    issue(p) {
      const [title, , text, color] = issuesPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, title, text, p.issue.html_url, color);
    },
    issueComment(p) {
      const [title, , color] = issueCommentPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, title, p.comment.body, p.comment.html_url, color);
    },
    pullRequest(p) {
      const [title, , text, color] = pullRequestPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, title, text, p.pull_request.html_url, color);
    },
    review(p, event) {
      return p.action === 'reviewed'
        ? payload(p.sender, reviewTitle(p, event), p.review?.content ?? '', p.pull_request.html_url, reviewColor[event])
        : payload(p.sender, '', '', p.pull_request.html_url, 0);
    },
    wiki(p) {
      const [text, color] = wikiPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, text, p.action !== 'deleted' ? p.comment : '', wikiPageUrl(p), color);
    },
    repository(p) {
      return p.action === 'created'
        ? payload(p.sender, `[${p.repository.full_name}] Repository created`, '', p.repository.html_url, colors.green)
        : payload(p.sender, `[${p.repository.full_name}] Repository deleted`, '', '', colors.red);
    },
    release(p) {
      const [text, color] = releasePayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, text, p.release.body, p.release.html_url, color);
    },
    package(p) {
      const [text, color] = packagePayloadInfo(p, noneLinkFormatter, false, appUrl);
      return payload(p.sender, text, '', p.package.html_url, color);
    },
  };
}
