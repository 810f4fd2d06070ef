import test from 'ava';
import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { route, ok } from '../../api/http/route.js';
import { openApiDocument } from '../../api/openapi.js';
import { apiRoutes } from '../../api/routes/index.js';
import { startHearth } from '../helpers/hearth.js';

test('GET /swagger.v1.json is a valid OpenAPI 2.0 document generated from the routes', async (t) => {
  const hearth = await startHearth(t);
  const answer = await hearth.call('GET', '/swagger.v1.json');
  t.is(answer.status, 200);
  t.regex(answer.headers.get('content-type') ?? '', /application\/json/);
  const doc = answer.body;
  t.is(doc.swagger, '2.0');
  t.is(doc.basePath, '/api/v1');
  t.is(doc.host, new URL(hearth.rootUrl).host);
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));

  const operations = new Map<string, { path: string; method: string; op: any }>();
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      t.false(operations.has(op.operationId), `duplicate operationId ${op.operationId}`);
      operations.set(op.operationId, { path, method, op });
    }
  }
  for (const id of ['userGetCurrent', 'userCreateToken', 'adminCreateUser']) t.true(operations.has(id), id);
  t.like(operations.get('userGetCurrent'), { path: '/user', method: 'get' });
  t.like(operations.get('userCreateToken'), { path: '/users/{username}/tokens', method: 'post' });
  t.like(operations.get('adminCreateUser'), { path: '/admin/users', method: 'post' });
  t.is(operations.size, apiRoutes.length);

  const create = operations.get('adminCreateUser')!.op;
  const body = create.parameters.find((p: { in: string }) => p.in === 'body');
  t.deepEqual([...body.schema.required].sort(), ['email', 'username']);
  t.truthy(body.schema.properties.created_at);
  t.deepEqual(body.schema.properties.visibility.enum, ['public', 'limited', 'private']);
  t.truthy(create.responses['201']);
  const search = operations.get('adminSearchUsers')!.op;
  t.deepEqual(search.parameters.map((p: { name: string }) => p.name).sort(), ['limit', 'login_name', 'page', 'source_id']);
  const tokens = operations.get('userGetTokens')!.op;
  t.deepEqual(tokens.parameters.find((p: { name: string }) => p.name === 'username'), { name: 'username', in: 'path', required: true, type: 'string' });
  t.regex(doc.securityDefinitions.Token.description, /[Dd]eprecated/);
  t.regex(doc.securityDefinitions.AccessToken.description, /[Dd]eprecated/);
});

test("an unknown /api/v1 route answers 404 with Gitea's error body", async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const [method, path, auth] of [
    ['GET', '/no/such/route', undefined],
    ['GET', '/users/alice/nothing/here', alice.bearer],
    ['POST', '/version', alice.bearer],
    ['DELETE', '/user', alice.basic],
  ] as const) {
    const answer = await hearth.call(method, path, { auth });
    t.is(answer.status, 404, `${method} ${path}`);
    t.deepEqual(Object.keys(answer.body).sort(), ['errors', 'message', 'url']);
    t.is(answer.body.message, "The target couldn't be found.");
    t.deepEqual(answer.body.errors, []);
    t.is(answer.body.url, `${hearth.rootUrl}api/swagger`);
  }
  const refused = await hearth.call('GET', '/user');
  t.deepEqual(Object.keys(refused.body).sort(), ['message', 'url']);
});

test('schemas OpenAPI 2.0 cannot express are brought down to ones it can', async (t) => {
  const body = z.object({
    visibility: z.union([z.enum(['public', 'private']), z.literal('')]).optional(),
    kind: z.literal('fixed'),
    note: z.string().nullable(),
    either: z.union([z.string(), z.number()]),
    tags: z.array(z.union([z.string(), z.null()])),
    pair: z.tuple([z.string(), z.number()]),
    meta: z.record(z.string(), z.number()),
  });
  const declared = route({
    method: 'post', path: '/things/{id}', operationId: 'thingCreate', summary: 'Create a thing', tag: 'things', scope: null,
    body, query: z.object({ ids: z.array(z.coerce.number()).optional(), mode: z.enum(['a', 'b']).optional(), when: z.iso.datetime().optional() }),
    paginated: true, responses: { 200: 'Thing' },
    handle: async () => ok({}),
  });
  const doc = openApiDocument([declared], 'http://localhost:3000/', '1.22.0') as any;
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const operation = doc.paths['/things/{id}'].post;
  const properties = operation.parameters.find((p: { in: string }) => p.in === 'body').schema.properties;
  t.deepEqual(properties.visibility, { type: 'string', enum: ['public', 'private', ''] });
  t.deepEqual(properties.kind.enum, ['fixed']);
  t.like(properties.note, { type: 'string', 'x-nullable': true });
  t.deepEqual(properties.either, {});
  t.false(JSON.stringify(doc).includes('anyOf'));
  const query = Object.fromEntries(operation.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => [p.name, p]));
  t.like(query.ids, { type: 'array', items: { type: 'number' }, collectionFormat: 'multi' });
  t.deepEqual(query.mode.enum, ['a', 'b']);
  t.like(query.page, { type: 'integer' });
});
