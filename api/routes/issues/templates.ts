import { issueConfigFromDefaultBranch, templatesFromDefaultBranch } from '../../../db/models/issues/templates.js';
import { ok, route } from '../../http/route.js';

export const issueTemplateRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issue_templates', operationId: 'repoGetIssueTemplates', summary: 'Get available issue templates for a repository',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'IssueTemplates' },
    handle: async ({ deps, repo }) => {
      const { templates, errors } = await templatesFromDefaultBranch(deps.git.open(repo.repo), repo.repo.default_branch);
      const reply = ok(templates);
      if (errors.size) reply.headers = { 'X-Gitea-Warning': `${errors.size} template(s) could not be parsed: ${[...errors.keys()].join(', ')}` };
      return reply;
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issue_config', operationId: 'repoGetIssueConfig', summary: 'Returns the issue config for a repo',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'RepoIssueConfig' },
    handle: async ({ deps, repo }) => ok((await issueConfigFromDefaultBranch(deps.git.open(repo.repo), repo.repo.default_branch)).config),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/issue_config/validate', operationId: 'repoValidateIssueConfig', summary: 'Returns the validation information for a issue config',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'RepoIssueConfigValidation' },
    handle: async ({ deps, repo }) => {
      const { error } = await issueConfigFromDefaultBranch(deps.git.open(repo.repo), repo.repo.default_branch);
      return ok({ valid: error === null, message: error ?? '' });
    },
  }),
];
