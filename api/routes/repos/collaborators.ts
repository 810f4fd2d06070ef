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
import { noContent, ok, route } from '../../http/route.js';
import { renderCollaboratorPermission } from '../../render/collaborator.js';
import { renderUser } from '../../render/user.js';
import type { Deps } from '../../deps.js';

const addCollaboratorBody = z.object({ permission: z.enum(['read', 'write', 'admin']).optional() });
const collaboratorModes: Record<string, CollaboratorMode> = { read: accessModes.read, write: accessModes.write, admin: accessModes.admin };

/** Gitea answers 422 when the user a collaborator path names does not exist. */
async function namedUser(deps: Deps, name: string): Promise<UserRow> {
  const user = await findUserByName(deps.db, name);
  if (!user) throw invalid(`user does not exist [name: ${name}]`);
  return user;
}

export const collaboratorRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators', operationId: 'repoListCollaborators', summary: "List a repository's collaborators", tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, paginated: true, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer, page, list }) => {
      const { users, total } = await listCollaborators(deps.db, repo.repo.id, page);
      return list(users.map((u) => renderUser(u, doer, deps.config)), total);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoCheckCollaborator', summary: 'Check if a user is a collaborator of a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, params }) => {
      const user = await namedUser(deps, params.collaborator);
      if (!(await isCollaborator(deps.db, repo.repo.id, user.id))) throw notFound(`${user.name} is not a collaborator`);
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoAddCollaborator', summary: 'Add a collaborator to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, body: addCollaboratorBody,
    responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params, body }) => {
      const user = await namedUser(deps, params.collaborator);
      const mode = collaboratorModes[body.permission ?? 'write'];
      await inTx(deps, (tx) => addCollaborator(tx, repo.repo, user, mode, doer));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoDeleteCollaborator', summary: 'Delete a collaborator from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, params }) => {
      const user = await namedUser(deps, params.collaborator);
      await inTx(deps, (tx) => removeCollaborator(tx, repo.repo, user, doer));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission', operationId: 'repoGetRepoPermissions', summary: 'Get repository permissions for a user', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'RepoCollaboratorPermission', 403: 'forbidden' },
    handle: async ({ deps, repo, doer, params }) => {
      if (!doer.is_admin && doer.lower_name !== params.collaborator.toLowerCase() && repo.mode < accessModes.admin) {
        throw forbidden('Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own');
      }
      const user = await findUserByName(deps.db, params.collaborator);
      if (!user) throw notFound(`user ${params.collaborator} does not exist`);
      return ok(renderCollaboratorPermission(user, await accessModeOf(deps.db, user, repo.repo), doer, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/assignees', operationId: 'repoGetAssignees', summary: 'Return all users that have write access and can be assigned to issues', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer }) => {
      const users = await listWriters(deps.db, repo.repo);
      return ok(users.map((u) => renderUser(u, doer, deps.config)));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/reviewers', operationId: 'repoGetReviewers', summary: 'Return all users that can be requested to review in this repo', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: {}, responses: { 200: 'UserList' },
    handle: async ({ deps, repo, doer }) => {
      const users = await listUsersWithAccess(deps.db, repo.repo, accessModes.read);
      return ok(users.map((u) => renderUser(u, doer, deps.config)));
    },
  }),
];
