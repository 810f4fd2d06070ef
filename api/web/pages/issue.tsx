import { listIssueComments } from '../../../db/models/issues/comments.js';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import { loadCommentViews, loadIssueView } from '../../../db/views/issues.js';
import { loadIssue } from '../../context/issue.js';
import { renderComment, renderIssue, type ApiComment, type ApiIssue } from '../../render/issue.js';
import { parseId } from '../../http/ids.js';
import { page, type PageAnswer, type PageContext } from '../page.js';
import { loadPull } from '../../context/pull.js';
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

/** A pull request's branches and whether it was merged. */
interface PullFacts {
  base: string;
  head: string;
  merged: boolean;
}

function IssuePage({ issue, opening, comments, pull }: { issue: ApiIssue; opening: Post; comments: Post[]; pull: PullFacts | null }) {
  const href = useHref();
  const [owner, name] = [issue.repository.owner, issue.repository.name];
  return (
    <>
      <p><a href={href(owner)}>{owner}</a> / <a href={href(owner, name)}>{name}</a></p>
      <h1>{issue.title} <span class="muted">#{issue.number}</span></h1>
      <p>
        <span class={`state-${issue.state}`}>{pull?.merged ? 'Merged' : issue.state === 'open' ? 'Open' : 'Closed'}</span>
        {issue.labels.map((label) => <span class="label" key={label.id} title={label.description}>{label.name}</span>)}
        {issue.milestone ? <span class="muted"> Milestone: {issue.milestone.title}</span> : null}
      </p>
      {pull ? <p class="muted">wants to merge <span class="mono">{pull.head}</span> into <span class="mono">{pull.base}</span></p> : null}
      <PostBox post={opening} />
      {comments.map((comment) => <PostBox post={comment} key={comment.id} />)}
    </>
  );
}

/**
 * `/{owner}/{repo}/issues/{index}` and `/{owner}/{repo}/pulls/{index}`: an issue or a pull request's conversation, its
 * comments rendered as Markdown and sanitized. Each path shows its own kind; the other kind redirects, as Gitea does.
 */
async function conversation({ deps, caller, params }: PageContext, wantPull: boolean): Promise<PageAnswer> {
  const repo = await loadWebRepo(deps, caller, params.owner, params.repo, wantPull ? 'repo.pulls' : 'repo.issues');
  const index = parseId(params.index);
  const loadedPull = wantPull ? await loadPull(deps, repo, index) : null;
  const issue = loadedPull ? loadedPull.issue : (await loadIssue(deps, repo, index)).issue;
  if (!wantPull && issue.is_pull) return { redirect: `${new URL(deps.config.rootUrl).pathname}${[repo.owner.name, repo.repo.name, 'pulls', issue.index].map((s) => encodeURIComponent(String(s))).join('/')}` };
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
  const pull = loadedPull ? { base: loadedPull.pull.base_branch, head: loadedPull.pull.head_branch, merged: loadedPull.pull.has_merged } : null;
  return { title: `${api.title} #${api.number}`, body: <IssuePage issue={api} opening={opening} comments={posts} pull={pull} /> };
}

export const issuePages = [
  page({ path: '/{owner}/{repo}/issues/{index}', handle: (ctx) => conversation(ctx, false) }),
  page({ path: '/{owner}/{repo}/pulls/{index}', handle: (ctx) => conversation(ctx, true) }),
];
