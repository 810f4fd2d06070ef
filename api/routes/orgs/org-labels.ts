import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { createLabel, deleteLabel, editLabel, findLabel, findLabelByName, listLabels, type LabelRow } from '../../../db/models/orgs/labels.js';
import type { OrgRow } from '../../../db/models/orgs/orgs.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderLabel } from '../../render/label.js';
import { loadOrg, requireOrgOwner } from './orgs.js';

const createLabelBody = z.object({
  name: z.string(),
  color: z.string(),
  description: z.string().optional(),
  exclusive: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});
const editLabelBody = createLabelBody.partial();

const labelsUrl = (deps: Deps, org: OrgRow): string => `${deps.config.rootUrl}api/v1/orgs/${encodeURIComponent(org.name)}/labels`;

/** An organization's label by id, or (for reads, as Gitea allows) by name. */
async function loadLabel(deps: Deps, org: OrgRow, id: string, byName: boolean): Promise<LabelRow> {
  const label = /^\d+$/.test(id) && Number(id) > 0
    ? await findLabel(deps.db, { orgId: org.id }, Number(id))
    : byName ? await findLabelByName(deps.db, { orgId: org.id }, id) : null;
  if (!label) throw notFound(`label ${id} does not exist`);
  return label;
}

export const orgLabelRoutes = [
  route({
    method: 'get', path: '/orgs/{org}/labels', operationId: 'orgListLabels', summary: "List an organization's labels", tag: 'organization',
    scope: 'read:organization', paginated: true, responses: { 200: 'LabelList', 404: 'notFound' },
    handle: async (ctx) => {
      const org = await loadOrg(ctx.deps, ctx.caller, ctx.params.org);
      const page = pageOf(ctx.query);
      const { labels, total } = await listLabels(ctx.deps.db, { orgId: org.id }, page);
      return paged(labels.map((label) => renderLabel(label, labelsUrl(ctx.deps, org))), total, page, ctx.url);
    },
  }),
  route({
    method: 'post', path: '/orgs/{org}/labels', operationId: 'orgCreateLabel', summary: 'Create a label for an organization', tag: 'organization',
    scope: 'write:organization', signedIn: true, body: createLabelBody,
    responses: { 201: 'Label', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      const label = await inTx(deps, (tx) => createLabel(tx, { orgId: org.id }, body));
      return created(renderLabel(label, labelsUrl(deps, org)));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/labels/{id}', operationId: 'orgGetLabel', summary: 'Get a single label', tag: 'organization',
    scope: 'read:organization', signedIn: true, responses: { 200: 'Label', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      return ok(renderLabel(await loadLabel(deps, org, params.id, true), labelsUrl(deps, org)));
    },
  }),
  route({
    method: 'patch', path: '/orgs/{org}/labels/{id}', operationId: 'orgEditLabel', summary: 'Update a label', tag: 'organization',
    scope: 'write:organization', signedIn: true, body: editLabelBody,
    responses: { 200: 'Label', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, caller, params, body }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      const label = await loadLabel(deps, org, params.id, false);
      return ok(renderLabel(await inTx(deps, (tx) => editLabel(tx, label, body)), labelsUrl(deps, org)));
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/labels/{id}', operationId: 'orgDeleteLabel', summary: 'Delete a label', tag: 'organization',
    scope: 'write:organization', signedIn: true, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const org = await loadOrg(deps, caller, params.org);
      await requireOrgOwner(deps, caller, org);
      const label = await loadLabel(deps, org, params.id, false);
      await inTx(deps, (tx) => deleteLabel(tx, label));
      return noContent();
    },
  }),
];
