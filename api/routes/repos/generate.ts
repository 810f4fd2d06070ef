import { z } from 'zod';
import { refName } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { resolveGenerateOwner, generateRepository } from '../../../db/models/repos/templates.js';
import { created, route } from '../../http/route.js';
import { loadRepo } from '../../context/repo.js';
import { loadRepoView } from '../../../db/views/repo.js';
import { renderRepository } from '../../render/repository.js';

const flag = z.boolean().optional();
const generateBody = z.object({
  owner: z.string().min(1),
  name: z.string().min(1).max(100),
  description: z.string().max(2048).optional(),
  private: flag,
  default_branch: refName().optional(),
  git_content: flag, topics: flag, git_hooks: flag, webhooks: flag, avatar: flag, labels: flag, protected_branch: flag,
});

export const generateRoutes = [
  route({
    method: 'post', path: '/repos/{template_owner}/{template_repo}/generate', operationId: 'generateRepo',
    summary: 'Create a repository using a template', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: generateBody,
    responses: { 201: 'Repository', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError' },
    handle: async ({ deps, caller, doer, params, body }) => {
      const template = await loadRepo(deps, caller, params.template_owner, params.template_repo);
      const owner = await resolveGenerateOwner(deps.db, doer, body.owner);
      const repo = await inTx(deps, (tx) => generateRepository(tx, deps, template.repo, owner, doer, body));
      return created(renderRepository(await loadRepoView(deps.db, repo, doer), doer, deps.config));
    },
  }),
];
