import {
  issuesCommentInfo, issuesInfo, noneLinkFormatter, packagePayloadInfo, pullRequestInfo, releasePayloadInfo, reviewTitle, shortRef, wikiPayloadInfo,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface FeishuPayload { msg_type: 'text'; content: { text: string } }

const text = (s: string): FeishuPayload => ({ msg_type: 'text', content: { text: s.trim() } });

/** Gitea's services/webhook/feishu.go (text messages). */
export function feishuConvertor({ appUrl }: FormatContext): Convertor<FeishuPayload> {
  return {
    create: (p) => text(`[${p.repository.full_name}] ${p.ref_type} ${shortRef(p.ref)} created`),
    delete: (p) => text(`[${p.repository.full_name}] ${p.ref_type} ${shortRef(p.ref)} deleted`),
    fork: (p) => text(`${p.forkee.full_name} is forked to ${p.repository.full_name}`),
    push(p) {
      // Gitea leaves the commit count out of this line (its commitDesc is never set)
      const lines = p.commits.map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${c.message.replace(/[\r\n]+$/, '')} - ${c.author.name}`);
      return text(`[${p.repository.full_name}:${shortRef(p.ref)}] \r\n${lines.join('\r\n')}`);
    },
    issue(p) {
      const i = issuesInfo(p);
      const head = `${i.title}\r\n${i.link}\r\n${i.by}\r\n${i.operator}\r\n`;
      if (!i.assignees) return text(`${head}\r\n${p.issue.body}`);
      const withResult = p.action === 'assigned' || p.action === 'unassigned' || p.action === 'milestoned';
      return text(`${head}${withResult ? `${i.result}\r\n` : ''}${i.assignees}\r\n\r\n${p.issue.body}`);
    },
    issueComment(p) {
      const i = issuesCommentInfo(p);
      return text(`${i.title}\r\n${i.link}\r\n${i.by}\r\n${i.operator}\r\n\r\n${p.comment.body}`);
    },
    pullRequest(p) {
      const i = pullRequestInfo(p);
      const head = `${i.title}\r\n${i.link}\r\n${i.by}\r\n${i.operator}\r\n`;
      if (!i.assignees) return text(`${head}\r\n${p.pull_request.body}`);
      const withResult = i.action === 'assigned' || i.action === 'unassigned' || i.action === 'milestoned';
      return text(`${head}${withResult ? `${i.result}\r\n` : ''}${i.assignees}\r\n\r\n${p.pull_request.body}`);
    },
    review: (p, event) => text(`${reviewTitle(p, event, true)}\r\n\r\n${p.review?.content ?? ''}`),
    wiki: (p) => text(wikiPayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
    repository: (p) => text(`[${p.repository.full_name}] Repository ${p.action}`),
    release: (p) => text(releasePayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
    package: (p) => text(packagePayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
  };
}
