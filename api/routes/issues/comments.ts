import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import {
  assertMayChangeComment, createComment, deleteComment, editComment, isEditableComment, listIssueComments, listRepoComments, listTimeline,
} from '../../../db/models/issues/comments.js';
import { commentType, type CommentRow, type IssueRow } from '../../../db/models/issues/issue-row.js';
import { issuesByIds } from '../../../db/models/issues/issues.js';
import { accessModes, type RepoRow } from '../../../db/models/repos/repo-row.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadCommentViews } from '../../../db/views/issues.js';
import { removeCommentAttachmentFiles } from '../../../db/models/issues/issue-attachments.js';
import { loadTimelineViews } from '../../../db/views/timeline.js';
import { accessModeOf } from '../../../db/models/access.js';
import { findRepoById } from '../../../db/models/repos/repos.js';
import { renderTimelineComment } from '../../render/timeline.js';
import { issueUnitMode, loadIssue } from '../../context/issue.js';
import { loadComment } from '../../context/comment.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderComment, type ApiComment } from '../../render/issue.js';
import { issueChange, issuesRepo } from './issues.js';
import { dateTimeQuery } from './schemas.js';

const commentBody = z.object({ body: z.string() });
const windowQuery = z.object({ since: dateTimeQuery, before: dateTimeQuery });

async function renderComments(deps: Deps, repo: RepoRow, comments: CommentRow[], issues: Map<number, IssueRow>, viewer: UserRow | null): Promise<ApiComment[]> {
  return (await loadCommentViews(deps.db, comments, issues, repo)).map((view) => renderComment(view, viewer, deps.config));
}

async function edit(deps: Deps, repo: LoadedRepo, doer: UserRow, id: number, body: string) {
  const { comment, issue, mode } = await loadComment(deps, repo, id);
  const canWrite = mode >= accessModes.write;
  assertMayChangeComment(comment, doer, canWrite);
  if (!isEditableComment(comment)) return noContent();
  const row = await inTx(deps, (tx) => editComment(tx, repo.repo, issue, comment, doer, body));
  return ok((await renderComments(deps, repo.repo, [row], new Map([[issue.id, issue]]), doer))[0]);
}

async function remove(deps: Deps, repo: LoadedRepo, doer: UserRow, id: number) {
  const { comment, issue, mode } = await loadComment(deps, repo, id);
  const canWrite = mode >= accessModes.write;
  assertMayChangeComment(comment, doer, canWrite);
  if (comment.type !== commentType.comment) return noContent();
  await inTx(deps, async (tx) => {
    await removeCommentAttachmentFiles(tx, deps.blobs, comment.id);
    await deleteComment(tx, repo.repo, issue, comment, doer);
  });
  return noContent();
}

export const commentRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/comments', operationId: 'issueGetComments', summary: 'List all comments on an issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], query: windowQuery, responses: { 200: 'CommentList' },
    handle: async ({ deps, repo, ids, query, doer }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      const rows = await listIssueComments(deps.db, issue.id, query);
      const body = await renderComments(deps, repo.repo, rows, new Map([[issue.id, issue]]), doer);
      return { status: 200, body, headers: { 'X-Total-Count': String(body.length) } };
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/comments', operationId: 'issueCreateComment', summary: 'Add a comment to an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issueChange, ids: ['index'], body: commentBody, responses: { 201: 'Comment', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue, mode } = await loadIssue(deps, repo, ids.index);
      const row = await inTx(deps, (tx) => createComment(tx, repo.repo, issue, doer, body.body, mode >= accessModes.write));
      return created((await renderComments(deps, repo.repo, [row], new Map([[issue.id, issue]]), doer))[0]);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/comments', operationId: 'issueGetRepoComments', summary: 'List all comments in a repository', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, query: windowQuery, paginated: true, responses: { 200: 'CommentList' },
    handle: async ({ deps, repo, query, page, list, doer }) => {
      const [issues, pulls] = await Promise.all([issueUnitMode(deps, repo, false), issueUnitMode(deps, repo, true)]);
      const canIssues = issues >= accessModes.read;
      const canPulls = pulls >= accessModes.read;
      if (!canIssues && !canPulls) throw notFound();
      const isPull = canIssues && canPulls ? undefined : canPulls;
      const { rows, total } = await listRepoComments(deps.db, repo.repo.id, { ...query, isPull }, page);
      const issueRows = await issuesByIds(deps.db, rows.map((row) => row.issue_id));
      return list(await renderComments(deps, repo.repo, rows, issueRows, doer), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/comments/{id}', operationId: 'issueGetComment', summary: 'Get a comment', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['id'], responses: { 200: 'Comment', 204: 'empty' },
    handle: async ({ deps, repo, ids, doer }) => {
      const { comment, issue } = await loadComment(deps, repo, ids.id);
      if (comment.type !== commentType.comment) return noContent();
      return ok((await renderComments(deps, repo.repo, [comment], new Map([[issue.id, issue]]), doer))[0]);
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/comments/{id}', operationId: 'issueEditComment', summary: 'Edit a comment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issueChange, ids: ['id'], body: commentBody, responses: { 200: 'Comment', 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => edit(deps, repo, doer, ids.id, body.body),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/comments/{id}', operationId: 'issueDeleteComment', summary: 'Delete a comment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => remove(deps, repo, doer, ids.id),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}', operationId: 'issueEditCommentDeprecated', summary: 'Edit a comment', tag: 'issue',
    deprecated: true, scope: 'write:issue', signedIn: true, repo: issueChange, ids: ['index', 'id'], body: commentBody,
    responses: { 200: 'Comment', 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => edit(deps, repo, doer, ids.id, body.body),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}', operationId: 'issueDeleteCommentDeprecated', summary: 'Delete a comment', tag: 'issue',
    deprecated: true, scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index', 'id'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => remove(deps, repo, doer, ids.id),
  }),
];

export const timelineRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/timeline', operationId: 'issueGetCommentsAndTimeline', summary: 'List all comments and events on an issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], query: windowQuery, paginated: true, responses: { 200: 'TimelineList' },
    handle: async ({ deps, repo, ids, query, page, list, caller }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      const { rows, total } = await listTimeline(deps.db, issue.id, query, page);
      const readable = async (repoId: number): Promise<boolean> => {
        const other = await findRepoById(deps.db, repoId);
        return other !== null && (await accessModeOf(deps.db, caller.user, other)) >= accessModes.read;
      };
      const views = await loadTimelineViews(deps.db, rows.filter((row) => row.type !== commentType.code), issue, repo.repo, readable);
      return list(views.map((view) => renderTimelineComment(view, deps.config)), total);
    },
  }),
];
