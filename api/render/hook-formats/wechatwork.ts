import {
  issueCommentPayloadInfo, issuesPayloadInfo, noneLinkFormatter, packagePayloadInfo, pullRequestPayloadInfo, releasePayloadInfo, reviewTitle, shortRef,
  wikiPayloadInfo,
} from './general.js';
import type { Convertor, FormatContext } from './convertor.js';

interface WechatworkPayload {
  msgtype: 'markdown';
  text: { content: string; mentioned_list: null; mentioned_mobile_list: null };
  markdown: { content: string };
}

const markdown = (content: string): WechatworkPayload => ({
  msgtype: 'markdown', text: { content: '', mentioned_list: null, mentioned_mobile_list: null }, markdown: { content },
});

/** Gitea's services/webhook/wechatwork.go (markdown messages). */
export function wechatworkConvertor({ appUrl }: FormatContext): Convertor<WechatworkPayload> {
  return {
    create: (p) => markdown(`[${p.repository.full_name}] ${p.ref_type} ${shortRef(p.ref)} created`),
    delete: (p) => markdown(`[${p.repository.full_name}] ${p.ref_type} ${shortRef(p.ref)} deleted`),
    fork: (p) => markdown(`${p.forkee.full_name} is forked to ${p.repository.full_name}`),
    push(p) {
      // Gitea leaves the commit count out of the title (its commitDesc is never set)
      const title = `# ${p.repository.full_name}:${shortRef(p.ref)} <font color="warning">    </font>`;
      const lines = p.commits.map((c) => {
        const message = c.message.replace(/\n\n/g, '\r\n');
        return ` > [${c.id.slice(0, 7)}](${c.url}) \r\n ><font color="info">${message}</font> \n ><font color="warning">Author: ${c.author.name}</font>`;
      });
      return markdown(`${title}\r\n\r\n${lines.join('\n')}`);
    },
    issue(p) {
      const [text, title, extra] = issuesPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return markdown(` ><font color="info">${text}</font>\n >${extra} \n ><font color="warning"> ${title}</font> \n [${p.issue.html_url}](${p.issue.html_url})`);
    },
    issueComment(p) {
      const [text, title] = issueCommentPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return markdown(` ><font color="info">${text}</font>\n >${p.comment.body} \n ><font color="warning">${title}</font> \n [${p.comment.html_url}](${p.comment.html_url})`);
    },
    pullRequest(p) {
      const [text, title, extra] = pullRequestPayloadInfo(p, noneLinkFormatter, true, appUrl);
      return markdown(`> <font color="info"> ${text} </font> \r\n > <font color="comment">${title} </font> \r\n > <font color="comment">${extra} </font> \r\n`);
    },
    review(p, event) {
      const [title, text] = p.action === 'reviewed' ? [reviewTitle(p, event, true), p.review?.content ?? ''] : ['', ''];
      return markdown(`# ${title}\r\n\r\n >${text}`);
    },
    wiki: (p) => markdown(wikiPayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
    repository: (p) => markdown(`[${p.repository.full_name}] Repository ${p.action}`),
    release: (p) => markdown(releasePayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
    package: (p) => markdown(packagePayloadInfo(p, noneLinkFormatter, true, appUrl)[0]),
  };
}
