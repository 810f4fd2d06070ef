import { listIssueComments } from '../../../db/models/issues/comments.js';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import { loadCommentViews, loadIssueView } from '../../../db/views/issues.js';
import { loadIssue } from '../../context/issue.js';
import { renderComment, renderIssue, type ApiComment, type ApiIssue } from '../../render/issue.js';
import { parseId } from '../../http/ids.js';
import { page } from '../page.js';
import { loadWebRepo } from '../web-repo.js';
import { useHref } from './site.js';

interface Post {
  id: string;
  author: string;
  when: string;
  html: string;
}

function PostBox({ post }: { post: Post }) {
  const href = useHref();
  return (
    <article class="comment" id={post.id}>
      <div class="head">
        {post.author ? <a href={href(post.author)}>{post.author}</a> : <span class="muted">Ghost</span>}
        {' '}<time class="muted" datetime={post.when}>{post.when.slice(0, 10)}</time>
      </div>
      <div class="markdown" dangerouslySetInnerHTML={{ __html: post.html }} />
    </article>
  );
}

function IssuePage({ issue, opening, comments }: { issue: ApiIssue; opening: Post; comments: Post[] }) {
  const href = useHref();
  const [owner, name] = [issue.repository.owner, issue.repository.name];
  return (
    <>
      <p><a href={href(owner)}>{owner}</a> / <a href={href(owner, name)}>{name}</a></p>
      <h1>{issue.title} <span class="muted">#{issue.number}</span></h1>
      <p>
        <span class={`state-${issue.state}`}>{issue.state === 'open' ? 'Open' : 'Closed'}</span>
        {issue.labels.map((label) => <span class="label" key={label.id} title={label.description}>{label.name}</span>)}
        {issue.milestone ? <span class="muted"> Milestone: {issue.milestone.title}</span> : null}
      </p>
      <PostBox post={opening} />
      {comments.map((comment) => <PostBox post={comment} key={comment.id} />)}
    </>
  );
}

/** `/{owner}/{repo}/issues/{index}`: an issue (or pull request) with its comments, rendered as Markdown and sanitized. */
export const issuePages = [
  page({
    path: '/{owner}/{repo}/issues/{index}',
    handle: async ({ deps, caller, params }) => {
      const repo = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.issues');
      const { issue } = await loadIssue(deps, repo, parseId(params.index));
      const [view, rows] = await Promise.all([loadIssueView(deps.db, issue, repo.repo), listIssueComments(deps.db, issue.id, {})]);
      const api = renderIssue(view, deps.config);
      const comments: ApiComment[] = (await loadCommentViews(deps.db, rows, new Map([[issue.id, issue]]), repo.repo))
        .map((comment) => renderComment(comment, caller.user, deps.config));
      const context = `${repo.owner.name}/${repo.repo.name}`;
      const markdown = (text: string) => renderMarkup(deps.db, { text, mode: 'comment', context }, deps.config.rootUrl, caller.user);
      const [openingHtml, ...commentHtml] = await Promise.all([api.body, ...comments.map((comment) => comment.body)].map(markdown));
      const opening: Post = { id: 'issue-body', author: api.user.login, when: api.created_at, html: openingHtml };
      const posts = comments.map((comment, i): Post => ({
        id: `issuecomment-${comment.id}`, author: comment.user.login, when: comment.created_at, html: commentHtml[i],
      }));
      return { title: `${api.title} #${api.number}`, body: <IssuePage issue={api} opening={opening} comments={posts} /> };
    },
  }),
];
