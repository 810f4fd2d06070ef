import type { ApiPayloadCommit } from '../git.js';
import {
  htmlLinkFormatter as link, issueCommentPayloadInfo, issuesPayloadInfo, packagePayloadInfo, pathEscape, pathEscapeSegments, pullRequestPayloadInfo,
  releasePayloadInfo, reviewVerdict, shortRef, wikiPayloadInfo,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface MatrixPayload {
  body: string;
  msgtype: string;
  format: 'org.matrix.custom.html';
  formatted_body: string;
  'io.gitea.commits'?: ApiPayloadCommit[];
}

/** Gitea's matrix message types by the meta's message_type. */
const messageTypes: Record<string, string> = { '1': 'm.notice', '2': 'm.text' };

/** Gitea's getMessageBody: links as Markdown, `<br>` as new lines. */
const messageBody = (html: string): string => html.replace(/<a [^>]*?href="([^">]*?)">(.*?)<\/a>/g, '[$2]($1)').replace(/<br>/g, '\n');

function linkToRef(repoUrl: string, ref: string): string {
  const name = shortRef(ref);
  const kind = ref.startsWith('refs/heads/') ? 'branch' : ref.startsWith('refs/tags/') ? 'tag' : 'commit';
  return link(`${repoUrl}/src/${kind}/${pathEscapeSegments(name)}`, name);
}

/** Gitea's services/webhook/matrix.go; delivered with PUT to the hook's URL plus a transaction id (the body's SHA-1). */
export function matrixConvertor({ appUrl, meta }: FormatContext): Convertor<MatrixPayload> {
  const msgtype = messageTypes[meta.message_type ?? ''] ?? '';
  const payload = (text: string, commits?: ApiPayloadCommit[]): MatrixPayload => ({
    body: messageBody(text), msgtype, format: 'org.matrix.custom.html', formatted_body: text, ...(commits?.length ? { 'io.gitea.commits': commits } : {}),
  });
  const repoLink = (r: { html_url: string; full_name: string }): string => link(r.html_url, r.full_name);
  return {
    create: (p) => payload(`[${repoLink(p.repository)}:${linkToRef(p.repository.html_url, p.ref)}] ${p.ref_type} created by ${p.sender.login}`),
    delete: (p) => payload(`[${repoLink(p.repository)}:${shortRef(p.ref)}] ${p.ref_type} deleted by ${p.sender.login}`),
    fork: (p) => payload(`${repoLink(p.forkee)} is forked to ${repoLink(p.repository)}`),
    issue: (p) => payload(issuesPayloadInfo(p, link, true, appUrl)[0]),
    issueComment: (p) => payload(issueCommentPayloadInfo(p, link, true, appUrl)[0]),
    pullRequest: (p) => payload(pullRequestPayloadInfo(p, link, true, appUrl)[0]),
    review(p, event) {
      if (p.action !== 'reviewed') return payload('');
      const sender = link(appUrl + pathEscape(p.sender.login), p.sender.login);
      const title = link(p.pull_request.html_url, `#${p.number} ${p.pull_request.title}`);
      return payload(`[${repoLink(p.repository)}] Pull request review ${reviewVerdict[event]}: ${title} by ${sender}`);
    },
    wiki: (p) => payload(wikiPayloadInfo(p, link, true, appUrl)[0]),
    release: (p) => payload(releasePayloadInfo(p, link, true, appUrl)[0]),
    package: (p) => payload(packagePayloadInfo(p, link, true, appUrl)[0]),
    push(p) {
      const desc = p.total_commits === 1 ? '1 commit' : `${p.total_commits} commits`;
      let text = `[${repoLink(p.repository)}] ${p.pusher.login} pushed ${desc} to ${linkToRef(p.repository.html_url, p.ref)}:<br>`;
      text += p.commits.map((c) => `${link(c.url, c.id.slice(0, 7))}: ${c.message} - ${c.author.name}`).join('<br>');
      return payload(text, p.commits);
    },
    repository(p) {
      const sender = link(appUrl + pathEscape(p.sender.login), p.sender.login);
      return payload(`[${repoLink(p.repository)}] Repository ${p.action} by ${sender}`);
    },
  };
}
