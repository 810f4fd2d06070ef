import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { adoptRepository, deleteUnadopted, listUnadopted } from '../../../db/models/repos/unadopted.js';
import { findUserByName } from '../../../db/models/users/users.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';
import { noContent, route } from '../../http/route.js';

// The description names the filter `pattern`; Gitea's handler reads `query`. Both are accepted.
const listQuery = z.object({ pattern: z.string().optional(), query: z.string().optional() });


async function loadOwner(deps: Deps, name: string): Promise<UserRow> {
  const owner = await findUserByName(deps.db, name);
  if (!owner) throw notFound(`user ${name} does not exist`);
  return owner;
}

export const unadoptedRoutes = [
  route({
    method: 'get', path: '/admin/unadopted', operationId: 'adminUnadoptedList', summary: 'List unadopted repositories', tag: 'admin',
    scope: 'read:admin', admin: true, query: listQuery, paginated: true, responses: { 200: 'StringSlice', 403: 'forbidden' },
    handle: async ({ deps, query, page, list }) => {
      const names = await listUnadopted(deps.db, deps.git, query.pattern ?? query.query ?? '');
      return list(names.slice(page.offset, page.offset + page.limit), names.length);
    },
  }),
  route({
    method: 'post', path: '/admin/unadopted/{owner}/{repo}', operationId: 'adminAdoptRepository', summary: 'Adopt unadopted files as a repository',
    tag: 'admin', scope: 'write:admin', admin: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, doer, params }) => {
      const owner = await loadOwner(deps, params.owner);
      await inTx(deps, (tx) => adoptRepository(tx, deps, owner, params.repo, doer));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/admin/unadopted/{owner}/{repo}', operationId: 'adminDeleteUnadoptedRepository', summary: 'Delete unadopted files',
    tag: 'admin', scope: 'write:admin', admin: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, params }) => {
      const owner = await loadOwner(deps, params.owner);
      await deleteUnadopted(deps.db, deps.git, owner, params.repo);
      return noContent();
    },
  }),
];
