import { notFound } from '../../../db/errors.js';
import {
  listGitignores, findGitignore, findLabelTemplate, listLabelTemplates, listLicenses, findLicense,
} from '../../../db/models/repos/repo-templates-data/index.js';
import { ok, route } from '../../http/route.js';

const licenseUrl = (rootUrl: string, key: string): string => `${rootUrl}api/v1/licenses/${encodeURIComponent(key)}`;

export const templateInfoRoutes = [
  route({
    method: 'get', path: '/gitignore/templates', operationId: 'listGitignoresTemplates', summary: 'Returns a list of all gitignore templates',
    tag: 'miscellaneous', scope: null, responses: { 200: 'GitignoreTemplateList' },
    handle: async () => ok(listGitignores()),
  }),
  route({
    method: 'get', path: '/gitignore/templates/{name}', operationId: 'getGitignoreTemplateInfo',
    summary: 'Returns information about a gitignore template', tag: 'miscellaneous', scope: null,
    responses: { 200: 'GitignoreTemplateInfo', 404: 'notFound' },
    handle: async ({ params }) => {
      const source = findGitignore(params.name);
      if (source === null) throw notFound(`gitignore template ${params.name} does not exist`);
      return ok({ name: params.name, source });
    },
  }),
  route({
    method: 'get', path: '/licenses', operationId: 'listLicenseTemplates', summary: 'Returns a list of all license templates',
    tag: 'miscellaneous', scope: null, responses: { 200: 'LicenseTemplateList' },
    handle: async ({ deps }) => ok(listLicenses().map((key) => ({ key, name: key, url: licenseUrl(deps.config.rootUrl, key) }))),
  }),
  route({
    method: 'get', path: '/licenses/{name}', operationId: 'getLicenseTemplateInfo', summary: 'Returns information about a license template',
    tag: 'miscellaneous', scope: null, responses: { 200: 'LicenseTemplateInfo', 404: 'notFound' },
    handle: async ({ deps, params }) => {
      const body = findLicense(params.name);
      if (body === null) throw notFound(`license template ${params.name} does not exist`);
      return ok({
        key: params.name,
        name: params.name,
        url: licenseUrl(deps.config.rootUrl, params.name),
        body,
        // GitHub's API adds this text to every license; Gitea copies it for compatibility.
        implementation: 'Create a text file (typically named LICENSE or LICENSE.txt) in the root of your source code and copy the text of the license into the file',
      });
    },
  }),
  route({
    method: 'get', path: '/label/templates', operationId: 'listLabelTemplates', summary: 'Returns a list of all label templates',
    tag: 'miscellaneous', scope: null, responses: { 200: 'LabelTemplateList' },
    handle: async () => ok(listLabelTemplates()),
  }),
  route({
    method: 'get', path: '/label/templates/{name}', operationId: 'getLabelTemplateInfo', summary: 'Returns all labels in a template',
    tag: 'miscellaneous', scope: null, responses: { 200: 'LabelTemplateInfo', 404: 'notFound' },
    handle: async ({ params }) => {
      const labels = findLabelTemplate(params.name);
      if (labels === null) throw notFound(`label template ${params.name} does not exist`);
      return ok(labels.map(({ name, exclusive, color, description }) => ({ name, exclusive, color, description })));
    },
  }),
];
