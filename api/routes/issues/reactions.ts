import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { addReaction, listReactions, removeReaction, type ReactionRow, type ReactionTarget } from '../../../db/models/issues/reactions.js';
import { findUsersByIds } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadComment } from '../../context/comment.js';
import { loadIssue } from '../../context/issue.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { created, ok, route, type Reply } from '../../http/route.js';
import { renderReaction, type ApiReaction } from '../../render/reaction.js';
import { issuesRepo } from './issues.js';

/** Gitea's EditReactionOption. */
const reactionBody = z.object({ content: z.string() });

async function renderReactions(deps: Deps, repo: LoadedRepo, rows: ReactionRow[], viewer: UserRow | null): Promise<ApiReaction[]> {
  const users = await findUsersByIds(deps.db, rows.map((row) => row.user_id));
  return rows.map((row) => renderReaction(row, users.get(row.user_id) ?? null, viewer, deps.config, repo.repo.original_service_type));
}

/** Adds the caller's reaction: 201 when new, 200 with the existing one when it was there already. */
async function react(deps: Deps, repo: LoadedRepo, target: ReactionTarget, doer: UserRow, content: string): Promise<Reply> {
  const outcome = await inTx(deps, (tx) => addReaction(tx, target, doer, content, deps.config.ui.reactions, repo.repo.owner_id));
  const body = renderReaction(outcome.reaction, doer, doer, deps.config);
  return outcome.created ? created(body) : ok(body);
}

/**
 * Reactions to issues and comments. Reading needs no token on a readable repository; writing needs write access
 * to the issue's unit (site administrators have it). Allowed kinds are [ui] REACTIONS.
 */
export const reactionRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issueGetIssueReactions', summary: 'Get a list reactions of an issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], paginated: true, responses: { 200: 'ReactionList' },
    handle: async ({ deps, repo, doer, ids, page, list }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      const { rows, total } = await listReactions(deps.db, { issue }, deps.config.ui.reactions, page);
      return list(await renderReactions(deps, repo, rows, doer), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issuePostIssueReaction', summary: 'Add a reaction to an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: reactionBody, responses: { 200: 'Reaction', 201: 'Reaction' },
    handle: async ({ deps, repo, doer, ids, body }) => react(deps, repo, { issue: (await loadIssue(deps, repo, ids.index, 'write')).issue }, doer, body.content),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issueDeleteIssueReaction', summary: 'Remove a reaction from an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: reactionBody, responses: { 200: 'empty' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue } = await loadIssue(deps, repo, ids.index, 'write');
      await inTx(deps, (tx) => removeReaction(tx, { issue }, doer, body.content));
      return ok(undefined);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issueGetCommentReactions',
    summary: 'Get a list of reactions from a comment of an issue', tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['id'], responses: { 200: 'ReactionList' },
    handle: async ({ deps, repo, doer, ids }) => {
      const target = await loadComment(deps, repo, ids.id);
      return ok(await renderReactions(deps, repo, (await listReactions(deps.db, target, deps.config.ui.reactions)).rows, doer));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issuePostCommentReaction',
    summary: 'Add a reaction to a comment of an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id'], body: reactionBody, responses: { 200: 'Reaction', 201: 'Reaction' },
    handle: async ({ deps, repo, doer, ids, body }) => react(deps, repo, await loadComment(deps, repo, ids.id, 'write'), doer, body.content),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issueDeleteCommentReaction',
    summary: 'Remove a reaction from a comment of an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['id'], body: reactionBody, responses: { 200: 'empty' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const target = await loadComment(deps, repo, ids.id, 'write');
      await inTx(deps, (tx) => removeReaction(tx, target, doer, body.content));
      return ok(undefined);
    },
  }),
];
