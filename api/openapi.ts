import { z } from 'zod';
import { paginationQuery } from './http/pagination.js';
import type { RouteDefinition } from './http/route.js';

type JsonObject = Record<string, unknown>;

function jsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-4', io: 'input', unrepresentable: 'any' }) as JsonObject;
  return rest;
}

function parameters(route: RouteDefinition): JsonObject[] {
  const params: JsonObject[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1], in: 'path', required: true, type: 'string',
  }));
  const query = route.paginated ? (route.query ?? z.object({})).extend(paginationQuery) : route.query;
  if (query) {
    const schema = jsonSchema(query) as { properties?: Record<string, JsonObject>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { type, enum: values, format } = property;
      params.push({
        name, in: 'query', required: schema.required?.includes(name) ?? false,
        type: typeof type === 'string' ? type : 'string', ...(values ? { enum: values } : {}), ...(format ? { format } : {}),
      });
    }
  }
  if (route.body) params.push({ name: 'body', in: 'body', schema: jsonSchema(route.body) });
  return params;
}

/** The OpenAPI 2.0 description of /api/v1, generated from the same declarations that serve and validate it. */
export function openApiDocument(routes: RouteDefinition[], rootUrl: string, version: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path));
  for (const route of sorted) {
    const responses = Object.fromEntries(Object.entries(route.responses).map(([status, name]) => [status, { description: name }]));
    (paths[route.path] ??= {})[route.method] = {
      tags: [route.tag],
      summary: route.summary,
      operationId: route.operationId,
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(route.body ? { consumes: ['application/json'] } : {}),
      produces: ['application/json'],
      parameters: parameters(route),
      responses,
    };
  }
  const url = new URL(rootUrl);
  return {
    swagger: '2.0',
    info: { title: 'Hearth API', description: 'Hearth serves the Gitea API dialect.', version, license: { name: 'MIT', url: 'http://opensource.org/licenses/MIT' } },
    host: url.host,
    basePath: `${url.pathname.replace(/\/$/, '')}/api/v1`,
    schemes: [url.protocol.replace(':', '')],
    consumes: ['application/json', 'text/plain'],
    produces: ['application/json', 'text/html'],
    securityDefinitions: {
      BasicAuth: { type: 'basic' },
      AuthorizationHeaderToken: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'API tokens must be prepended with "token" followed by a space.' },
      Token: { type: 'apiKey', name: 'token', in: 'query', description: 'Deprecated: use AuthorizationHeaderToken instead.' },
      AccessToken: { type: 'apiKey', name: 'access_token', in: 'query', description: 'Deprecated: use AuthorizationHeaderToken instead.' },
      TOTPHeader: { type: 'apiKey', name: 'X-GITEA-OTP', in: 'header', description: 'Must be used in combination with BasicAuth if two-factor authentication is enabled.' },
    },
    security: [{ BasicAuth: [] }, { Token: [] }, { AccessToken: [] }, { AuthorizationHeaderToken: [] }, { TOTPHeader: [] }],
    paths,
  };
}
