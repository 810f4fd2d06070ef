import type { ApiRepository } from '../repository.js';
import type { ApiUser } from '../user.js';
import {
  colors, hex, issueCommentPayloadInfo, issuesPayloadInfo, noneLinkFormatter, packagePayloadInfo, pathEscapeSegments, pullRequestPayloadInfo, releasePayloadInfo,
  reviewColor, reviewTitle, shortRef, wikiPageUrl, wikiPayloadInfo, pushSummary,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface Fact { name: string; value: string }
interface MSTeamsPayload {
  '@type': 'MessageCard';
  '@context': string;
  themeColor: string;
  title: string;
  summary: string;
  sections: Array<{ activityTitle: string; activitySubtitle: string; activityImage: string; facts: Fact[]; text: string }>;
  potentialAction: Array<{ '@type': string; name: string; targets: Array<{ os: string; uri: string }> }>;
}

function card(repo: ApiRepository | null, sender: ApiUser, title: string, text: string, target: string, color: number, fact: Fact | null): MSTeamsPayload {
  const facts: Fact[] = [];
  if (repo) facts.push({ name: 'Repository:', value: repo.full_name });
  if (fact) facts.push(fact);
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    themeColor: hex(color),
    title,
    summary: title,
    sections: [{ activityTitle: sender.full_name, activitySubtitle: sender.login, activityImage: sender.avatar_url, facts, text }],
    potentialAction: [{ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri: target }] }],
  };
}

/** Gitea's services/webhook/msteams.go (a MessageCard). */
export function msteamsConvertor({ appUrl }: FormatContext): Convertor<MSTeamsPayload> {
  return {
    create(p) {
      const ref = shortRef(p.ref);
      return card(p.repository, p.sender, `[${p.repository.full_name}] ${p.ref_type} ${ref} created`, '', `${p.repository.html_url}/src/${pathEscapeSegments(ref)}`,
        colors.green, { name: `${p.ref_type}:`, value: ref });
    },
    delete(p) {
      const ref = shortRef(p.ref);
      return card(p.repository, p.sender, `[${p.repository.full_name}] ${p.ref_type} ${ref} deleted`, '', `${p.repository.html_url}/src/${pathEscapeSegments(ref)}`,
        colors.yellow, { name: `${p.ref_type}:`, value: ref });
    },
    fork: (p) => card(p.repository, p.sender, `${p.forkee.full_name} is forked to ${p.repository.full_name}`, '', p.repository.html_url, colors.green,
      { name: 'Forkee:', value: p.forkee.full_name }),
    push(p) {
      const { branch, titleLink, count } = pushSummary(p);
      const title = `[${p.repository.full_name}:${branch}] ${count}`;
      const text = p.commits.map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${c.message.replace(/[\r\n]+$/, '')} - ${c.author.name}`).join('\n\n');
      return card(p.repository, p.sender, title, text, titleLink, colors.green, { name: 'Commit count:', value: String(p.total_commits) });
    },
    issue(p) {
      const [title, , text, color] = issuesPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, text, p.issue.html_url, color, { name: 'Issue #:', value: String(p.issue.id) });
    },
    issueComment(p) {
      const [title, , color] = issueCommentPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, p.comment.body, p.comment.html_url, color, { name: 'Issue #:', value: String(p.issue.id) });
    },
    pullRequest(p) {
      const [title, , text, color] = pullRequestPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, text, p.pull_request.html_url, color, { name: 'Pull request #:', value: String(p.pull_request.id) });
    },
    review(p, event) {
      const reviewed = p.action === 'reviewed';
      return card(p.repository, p.sender, reviewed ? reviewTitle(p, event) : '', reviewed ? p.review?.content ?? '' : '', p.pull_request.html_url,
        reviewed ? reviewColor[event] : 0, { name: 'Pull request #:', value: String(p.pull_request.id) });
    },
    wiki(p) {
      const [title, color] = wikiPayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, '', wikiPageUrl(p), color, { name: 'Repository:', value: p.repository.full_name });
    },
    repository(p) {
      return p.action === 'created'
        ? card(p.repository, p.sender, `[${p.repository.full_name}] Repository created`, '', p.repository.html_url, colors.green, null)
        : card(p.repository, p.sender, `[${p.repository.full_name}] Repository deleted`, '', '', colors.yellow, null);
    },
    release(p) {
      const [title, color] = releasePayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, '', p.release.html_url, color, { name: 'Tag:', value: p.release.tag_name });
    },
    package(p) {
      const [title, color] = packagePayloadInfo(p, noneLinkFormatter, false, appUrl);
      return card(p.repository, p.sender, title, '', p.package.html_url, color, { name: 'Package:', value: p.package.name });
    },
  };
}
