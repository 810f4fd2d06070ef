import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { forbidden, invalid, notFound } from '../../../db/errors.js';
import { accessModeOf } from '../../../db/models/access.js';
import {
  addCollaborator, isCollaborator, listCollaborators, listUsersWithAccess, listWriters, removeCollaborator, type CollaboratorMode,
} from '../../../db/models/repos/collaborators.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { findUserByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { doerOf } from '../../context/user.js';
import { loadRepo, requireMode } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { noContent, ok, route } from '../../http/route.js';
import { renderCollaboratorPermission } from '../../render/collaborator.js';
import { renderUser } from '../../render/user.js';
import type { Deps } from '../../deps.js';

const addCollaboratorBody = z.object({ permission: z.enum(['read', 'write', 'admin']).optional() });
const collaboratorModes: Record<string, CollaboratorMode> = { read: accessModes.read, write: accessModes.write, admin: accessModes.admin };

type PageQuery = { page?: number; limit?: number };

/** Gitea answers 422 when the user a collaborator path names does not exist. */
async function namedUser(deps: Deps, name: string): Promise<UserRow> {
  const user = await findUserByName(deps.db, name);
  if (!user) throw invalid(`user does not exist [name: ${name}]`);
  return user;
}

export const collaboratorRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators', operationId: 'repoListCollaborators', summary: "List a repository's collaborators", tag: 'repository',
    scope: 'read:repository', signedIn: true, paginated: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async (ctx) => {
      const { deps, caller, params } = ctx;
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const page = pageOf(ctx.query);
      const { users, total } = await listCollaborators(deps.db, loaded.repo.id, page);
      return paged(users.map((u) => renderUser(u, caller.user, deps.config)), total, page, ctx.url);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoCheckCollaborator', summary: 'Check if a user is a collaborator of a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const user = await namedUser(deps, params.collaborator);
      if (!(await isCollaborator(deps.db, loaded.repo.id, user.id))) throw notFound(`${user.name} is not a collaborator`);
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoAddCollaborator', summary: 'Add a collaborator to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: addCollaboratorBody,
    responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.admin);
      const user = await namedUser(deps, params.collaborator);
      const mode = collaboratorModes[body.permission ?? 'write'];
      await inTx(deps, (tx) => addCollaborator(tx, loaded.repo, user, mode, doerOf(caller)));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoDeleteCollaborator', summary: 'Delete a collaborator from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.admin);
      const user = await namedUser(deps, params.collaborator);
      await inTx(deps, (tx) => removeCollaborator(tx, loaded.repo, user, doerOf(caller)));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission', operationId: 'repoGetRepoPermissions', summary: 'Get repository permissions for a user', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'RepoCollaboratorPermission', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const doer = doerOf(caller);
      if (!doer.is_admin && doer.lower_name !== params.collaborator.toLowerCase() && loaded.mode < accessModes.admin) {
        throw forbidden('Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own');
      }
      const user = await findUserByName(deps.db, params.collaborator);
      if (!user) throw notFound(`user ${params.collaborator} does not exist`);
      const mode = await accessModeOf(deps.db, user, loaded.repo);
      return ok(renderCollaboratorPermission(user, mode, caller.user, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/assignees', operationId: 'repoGetAssignees', summary: 'Return all users that have write access and can be assigned to issues', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const users = await listWriters(deps.db, loaded.repo);
      return ok(users.map((u) => renderUser(u, caller.user, deps.config)));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/reviewers', operationId: 'repoGetReviewers', summary: 'Return all users that can be requested to review in this repo', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'UserList', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const users = await listUsersWithAccess(deps.db, loaded.repo, accessModes.read);
      return ok(users.map((u) => renderUser(u, caller.user, deps.config)));
    },
  }),
];
