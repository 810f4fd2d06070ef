import { z } from 'zod';
import { limits, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { createLabel, deleteLabel, editLabel, findLabel, findLabelByName, listLabels, type LabelRow } from '../../../db/models/orgs/labels.js';
import type { OrgRow } from '../../../db/models/orgs/orgs.js';
import type { Deps } from '../../deps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderLabel } from '../../render/label.js';

const createLabelBody = z.object({
  name: text(limits.name),
  color: text(limits.name),
  description: text(limits.name).optional(),
  exclusive: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});
const editLabelBody = createLabelBody.partial();

const labelsUrl = (deps: Deps, org: OrgRow): string => `${deps.config.rootUrl}api/v1/orgs/${encodeURIComponent(org.name)}/labels`;

/** Gitea's GetLabel: a positive number names a label by id, anything else by name. */
async function loadLabelByIdOrName(deps: Deps, org: OrgRow, key: string): Promise<LabelRow> {
  const label = /^\d+$/.test(key) && Number(key) > 0
    ? await findLabel(deps.db, { orgId: org.id }, Number(key))
    : await findLabelByName(deps.db, { orgId: org.id }, key);
  if (!label) throw notFound(`label ${key} does not exist`);
  return label;
}

async function loadLabel(deps: Deps, org: OrgRow, id: number): Promise<LabelRow> {
  const label = await findLabel(deps.db, { orgId: org.id }, id);
  if (!label) throw notFound(`label ${id} does not exist`);
  return label;
}

export const orgLabelRoutes = [
  route({
    method: 'get', path: '/orgs/{org}/labels', operationId: 'orgListLabels', summary: "List an organization's labels", tag: 'organization',
    scope: 'read:organization', org: {}, paginated: true, responses: { 200: 'LabelList', 404: 'notFound' },
    handle: async ({ deps, org, page, list }) => {
      const { labels, total } = await listLabels(deps.db, { orgId: org.id }, page);
      return list(labels.map((label) => renderLabel(label, labelsUrl(deps, org))), total);
    },
  }),
  route({
    method: 'post', path: '/orgs/{org}/labels', operationId: 'orgCreateLabel', summary: 'Create a label for an organization', tag: 'organization',
    scope: 'write:organization', signedIn: true, org: { role: 'owner' }, body: createLabelBody,
    responses: { 201: 'Label', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, org, body }) => {
      const label = await inTx(deps, (tx) => createLabel(tx, { orgId: org.id }, body));
      return created(renderLabel(label, labelsUrl(deps, org)));
    },
  }),
  route({
    method: 'get', path: '/orgs/{org}/labels/{id}', operationId: 'orgGetLabel', summary: 'Get a single label', tag: 'organization',
    scope: 'read:organization', signedIn: true, org: {}, responses: { 200: 'Label', 404: 'notFound' },
    handle: async ({ deps, org, params }) => ok(renderLabel(await loadLabelByIdOrName(deps, org, params.id), labelsUrl(deps, org))),
  }),
  route({
    method: 'patch', path: '/orgs/{org}/labels/{id}', operationId: 'orgEditLabel', summary: 'Update a label', tag: 'organization',
    scope: 'write:organization', signedIn: true, org: { role: 'owner' }, ids: ['id'], body: editLabelBody,
    responses: { 200: 'Label', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, org, ids, body }) => {
      const label = await loadLabel(deps, org, ids.id);
      return ok(renderLabel(await inTx(deps, (tx) => editLabel(tx, label, body)), labelsUrl(deps, org)));
    },
  }),
  route({
    method: 'delete', path: '/orgs/{org}/labels/{id}', operationId: 'orgDeleteLabel', summary: 'Delete a label', tag: 'organization',
    scope: 'write:organization', signedIn: true, org: { role: 'owner' }, ids: ['id'], responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, org, ids }) => {
      const label = await loadLabel(deps, org, ids.id);
      await inTx(deps, (tx) => deleteLabel(tx, label));
      return noContent();
    },
  }),
];
