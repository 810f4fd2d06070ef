import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, locked, notFound } from '../../../db/errors.js';
import { mayEditCommentAttachments, mayEditIssueAttachments } from '../../../db/models/access.js';
import {
  attachFile, getCommentAttachment, getIssueAttachment, listCommentAttachments, listIssueAttachments,
} from '../../../db/models/issues/issue-attachments.js';
import { deleteAttachment, renameAttachment, type AttachmentRow, type UploadRules } from '../../../db/models/releases/attachments.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadComment, type LoadedComment } from '../../context/comment.js';
import { loadIssue, type LoadedIssue } from '../../context/issue.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route, type Reply } from '../../http/route.js';
import { receiveUpload } from '../../http/upload.js';
import { renderAttachment } from '../../render/release.js';
import { issuesRepo } from './issues.js';

const uploadQuery = z.object({ name: z.string().optional() });
const editAttachmentBody = z.object({ name: z.string().optional() });

/** [attachment] MAX_SIZE (MiB) and ALLOWED_TYPES. */
const rulesOf = (deps: Deps): UploadRules => ({ maxBytes: deps.config.attachment.maxSize * 1024 * 1024, allowedTypes: deps.config.attachment.allowedTypes });

/** Gitea's mustEnableAttachments (404 while [attachment] ENABLED is off), and mustNotBeArchived for changes. */
function requireAttachments(deps: Deps, repo: LoadedRepo, change = false): void {
  if (!deps.config.attachment.enabled) throw notFound('attachments are disabled');
  if (change && repo.repo.is_archived) throw locked('repo is archived');
}

/** The issue, when the caller may change its attachments (the poster, writers and administrators): 403 otherwise. */
async function issueForChange(deps: Deps, repo: LoadedRepo, doer: UserRow, index: number): Promise<LoadedIssue> {
  requireAttachments(deps, repo, true);
  const loaded = await loadIssue(deps, repo, index);
  if (!mayEditIssueAttachments(loaded.issue, doer, loaded.mode, repo.repoMode)) throw forbidden('user should have permission to write issue');
  return loaded;
}

/** The comment, when the caller may change its attachments (a writer who wrote it or administers the repository): 403 otherwise. */
async function commentForChange(deps: Deps, repo: LoadedRepo, doer: UserRow, id: number): Promise<LoadedComment> {
  requireAttachments(deps, repo, true);
  const loaded = await loadComment(deps, repo, id);
  if (!mayEditCommentAttachments(loaded.comment, doer, loaded.mode, repo.repoMode)) throw forbidden('user should have permission to edit comment');
  return loaded;
}

/** Gitea's EditAttachment: only the name changes (it must keep an allowed type); the answer is a 201. */
async function rename(deps: Deps, attachment: AttachmentRow, name: string | undefined): Promise<Reply> {
  const row = name ? await inTx(deps, (tx) => renameAttachment(tx, attachment, name, rulesOf(deps))) : attachment;
  return created(renderAttachment(row, deps.config));
}

async function remove(deps: Deps, attachment: AttachmentRow): Promise<Reply> {
  await inTx(deps, (tx) => deleteAttachment(tx, deps.blobs, attachment));
  return noContent();
}

/** Files attached to issues (and pull requests, through their issue) and to comments, streamed to the blob store. */
export const issueAttachmentRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/assets', operationId: 'issueListIssueAttachments', summary: "List issue's attachments", tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], responses: { 200: 'AttachmentList' },
    handle: async ({ deps, repo, ids }) => {
      requireAttachments(deps, repo);
      const { issue } = await loadIssue(deps, repo, ids.index);
      return ok((await listIssueAttachments(deps.db, issue)).map((a) => renderAttachment(a, deps.config)));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/assets', operationId: 'issueCreateIssueAttachment', summary: 'Create an issue attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], query: uploadQuery,
    responses: { 201: 'Attachment', 400: 'error', 413: 'error', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, query, req }) => {
      const { issue } = await issueForChange(deps, repo, doer, ids.index);
      const rules = rulesOf(deps);
      const upload = await receiveUpload(req, deps.blobs, query.name, rules);
      const attachment = await inTx(deps, (tx) => attachFile(tx, deps.blobs, { issue }, doer, upload, rules));
      return created(renderAttachment(attachment, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}', operationId: 'issueGetIssueAttachment', summary: 'Get an issue attachment', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index', 'attachment_id'], responses: { 200: 'Attachment' },
    handle: async ({ deps, repo, ids }) => {
      requireAttachments(deps, repo);
      const { issue } = await loadIssue(deps, repo, ids.index);
      return ok(renderAttachment(await getIssueAttachment(deps.db, issue, ids.attachment_id), deps.config));
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}', operationId: 'issueEditIssueAttachment', summary: 'Edit an issue attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index', 'attachment_id'], body: editAttachmentBody,
    responses: { 201: 'Attachment', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue } = await issueForChange(deps, repo, doer, ids.index);
      return rename(deps, await getIssueAttachment(deps.db, issue, ids.attachment_id), body.name);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/assets/{attachment_id}', operationId: 'issueDeleteIssueAttachment', summary: 'Delete an issue attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index', 'attachment_id'], responses: { 204: 'empty', 423: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await issueForChange(deps, repo, doer, ids.index);
      return remove(deps, await getIssueAttachment(deps.db, issue, ids.attachment_id));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/comments/{id}/assets', operationId: 'issueListIssueCommentAttachments', summary: "List comment's attachments", tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['id'], responses: { 200: 'AttachmentList' },
    handle: async ({ deps, repo, ids }) => {
      requireAttachments(deps, repo);
      const { comment } = await loadComment(deps, repo, ids.id);
      return ok((await listCommentAttachments(deps.db, comment)).map((a) => renderAttachment(a, deps.config)));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/comments/{id}/assets', operationId: 'issueCreateIssueCommentAttachment', summary: 'Create a comment attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id'], query: uploadQuery,
    responses: { 201: 'Attachment', 400: 'error', 413: 'error', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, query, req }) => {
      const { issue, comment } = await commentForChange(deps, repo, doer, ids.id);
      const rules = rulesOf(deps);
      const upload = await receiveUpload(req, deps.blobs, query.name, rules);
      const attachment = await inTx(deps, (tx) => attachFile(tx, deps.blobs, { issue, comment }, doer, upload, rules));
      return created(renderAttachment(attachment, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}', operationId: 'issueGetIssueCommentAttachment', summary: 'Get a comment attachment', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['id', 'attachment_id'], responses: { 200: 'Attachment' },
    handle: async ({ deps, repo, ids }) => {
      requireAttachments(deps, repo);
      const { issue, comment } = await loadComment(deps, repo, ids.id);
      return ok(renderAttachment(await getCommentAttachment(deps.db, issue, comment, ids.attachment_id), deps.config));
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}', operationId: 'issueEditIssueCommentAttachment', summary: 'Edit a comment attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id', 'attachment_id'], body: editAttachmentBody,
    responses: { 201: 'Attachment', 422: 'validationError', 423: 'error' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue, comment } = await commentForChange(deps, repo, doer, ids.id);
      return rename(deps, await getCommentAttachment(deps.db, issue, comment, ids.attachment_id), body.name);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/comments/{id}/assets/{attachment_id}', operationId: 'issueDeleteIssueCommentAttachment', summary: 'Delete a comment attachment', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id', 'attachment_id'], responses: { 204: 'empty', 423: 'error' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue, comment } = await commentForChange(deps, repo, doer, ids.id);
      return remove(deps, await getCommentAttachment(deps.db, issue, comment, ids.attachment_id));
    },
  }),
];
