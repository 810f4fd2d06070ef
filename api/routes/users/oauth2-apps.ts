import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { createOAuth2App, deleteOAuth2App, getOAuth2App, listOAuth2Apps, updateOAuth2App } from '../../../db/models/users/oauth2-apps.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderOAuth2Application } from '../../render/oauth2-app.js';

const appBody = z.object({
  name: z.string().max(255).default(''),
  redirect_uris: z.array(z.string().max(2048)).max(100).default([]),
  confidential_client: z.boolean().default(false),
});

const read = { scope: 'read:user', signedIn: true } as const;
const write = { scope: 'write:user', signedIn: true } as const;

export const oauth2AppRoutes = [
  route({
    method: 'get', path: '/user/applications/oauth2', operationId: 'userGetOauth2Application', summary: "List the authenticated user's oauth2 applications", tag: 'user',
    ...read, paginated: true, responses: { 200: 'OAuth2ApplicationList' },
    handle: async ({ deps, doer, page, list }) => {
      const { apps, total } = await listOAuth2Apps(deps.db, doer.id, page);
      return list(apps.map((app) => renderOAuth2Application(app)), total);
    },
  }),
  route({
    method: 'post', path: '/user/applications/oauth2', operationId: 'userCreateOAuth2Application', summary: 'creates a new OAuth2 application', tag: 'user',
    ...write, body: appBody, responses: { 201: 'OAuth2Application', 400: 'error', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => {
      const { app, secret } = await inTx(deps, (tx) => createOAuth2App(tx, doer, body));
      return created(renderOAuth2Application(app, secret));
    },
  }),
  route({
    method: 'get', path: '/user/applications/oauth2/{id}', operationId: 'userGetOAuth2Application', summary: 'get an OAuth2 Application', tag: 'user',
    ...read, ids: ['id'], responses: { 200: 'OAuth2Application', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => ok(renderOAuth2Application(await getOAuth2App(deps.db, doer.id, ids.id))),
  }),
  route({
    method: 'patch', path: '/user/applications/oauth2/{id}', operationId: 'userUpdateOAuth2Application',
    summary: 'update an OAuth2 Application, this includes regenerating the client secret', tag: 'user',
    ...write, ids: ['id'], body: appBody, responses: { 200: 'OAuth2Application', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, doer, ids, body }) => {
      const { app, secret } = await inTx(deps, (tx) => updateOAuth2App(tx, doer, ids.id, body));
      return ok(renderOAuth2Application(app, secret));
    },
  }),
  route({
    method: 'delete', path: '/user/applications/oauth2/{id}', operationId: 'userDeleteOAuth2Application', summary: 'delete an OAuth2 Application', tag: 'user',
    ...write, ids: ['id'], responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, doer, ids }) => {
      await inTx(deps, (tx) => deleteOAuth2App(tx, doer, ids.id));
      return noContent();
    },
  }),
];
