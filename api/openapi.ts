import { z } from 'zod';
import { paginationQuery } from './http/pagination.js';
import type { RouteDefinition } from './http/route.js';
import { responseFor, sectionsFor } from './openapi/shapes.js';

type JsonObject = Record<string, unknown>;

function jsonSchema(schema: z.ZodType): JsonObject {
  return swaggerSchema(z.toJSONSchema(schema, { target: 'draft-4', io: 'input', unrepresentable: 'any' }) as JsonObject);
}

/** The keywords an OpenAPI 2.0 Schema Object may carry; JSON Schema has more, and a validator refuses them. */
const schemaKeywords = new Set([
  'format', 'title', 'description', 'default', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required',
  'enum', 'type', 'items', 'allOf', 'properties', 'additionalProperties', 'readOnly', 'example',
]);

/**
 * Brings a draft-4 JSON Schema down to what OpenAPI 2.0 can say: a union becomes one schema (enums of one type are
 * merged, a nullable branch becomes `x-nullable`, anything else is left untyped), `const` becomes a one-value enum,
 * and keywords OpenAPI 2.0 lacks are dropped.
 */
function swaggerSchema(input: JsonObject): JsonObject {
  const source: JsonObject = { ...input };
  let nullable = false;
  if (Array.isArray(source.type)) {
    const types = (source.type as string[]).filter((type) => type !== 'null');
    nullable = types.length < (source.type as string[]).length;
    source.type = types.length === 1 ? types[0] : undefined;
  }
  if (source.type === 'null') {
    nullable = true;
    delete source.type;
  }
  if ('const' in source) source.enum = [source.const];
  const union = (source.anyOf ?? source.oneOf) as JsonObject[] | undefined;
  if (union) {
    const branches = union.filter((branch) => branch.type !== 'null');
    nullable ||= branches.length < union.length;
    Object.assign(source, mergeBranches(branches.map(swaggerSchema)), { description: source.description });
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || !schemaKeywords.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonObject>).map(([name, property]) => [name, swaggerSchema(property)]));
    } else if (key === 'items') {
      out.items = swaggerSchema(Array.isArray(value) ? ((value[0] as JsonObject | undefined) ?? {}) : (value as JsonObject));
    } else if (key === 'allOf') {
      out.allOf = (value as JsonObject[]).map(swaggerSchema);
    } else if (key === 'additionalProperties' && typeof value === 'object') {
      out.additionalProperties = swaggerSchema(value as JsonObject);
    } else {
      out[key] = value;
    }
  }
  if (nullable) out['x-nullable'] = true;
  return out;
}

function mergeBranches(branches: JsonObject[]): JsonObject {
  if (branches.length === 1) return branches[0];
  const types = new Set(branches.map((branch) => branch.type));
  if (types.size !== 1 || branches.some((branch) => branch.type === undefined)) return {};
  const type = branches[0].type;
  if (branches.every((branch) => Array.isArray(branch.enum))) {
    return { type, enum: [...new Set(branches.flatMap((branch) => branch.enum as unknown[]))] };
  }
  return { type };
}

/** OpenAPI 2.0 query parameters are scalars, or arrays of scalars repeated as `name=a&name=b`. */
function queryParameterType(property: JsonObject): JsonObject {
  const scalar = (type: unknown): string => (typeof type === 'string' && ['string', 'number', 'integer', 'boolean'].includes(type) ? type : 'string');
  if (property.type === 'array') {
    const items = (property.items ?? {}) as JsonObject;
    return { type: 'array', items: { type: scalar(items.type) }, collectionFormat: 'multi' };
  }
  return { type: scalar(property.type) };
}

function parameters(route: RouteDefinition): JsonObject[] {
  const params: JsonObject[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1], in: 'path', required: true, ...(route.ids?.includes(m[1]) ? { type: 'integer', format: 'int64' } : { type: 'string' }),
  }));
  const query = route.paginated ? (route.query ?? z.object({})).extend(paginationQuery) : route.query;
  if (query) {
    const schema = jsonSchema(query) as { properties?: Record<string, JsonObject>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { enum: values, format } = property;
      params.push({
        name, in: 'query', required: schema.required?.includes(name) ?? false,
        ...queryParameterType(property), ...(values ? { enum: values } : {}), ...(format ? { format } : {}),
      });
    }
  }
  if (route.body) params.push({ name: 'body', in: 'body', schema: jsonSchema(route.body) });
  return params;
}

/** What the successful answer is sent as: a file's bytes, text, HTML, or (mostly) JSON. */
function producesOf(route: RouteDefinition): string[] {
  const success = Object.entries(route.responses).find(([status]) => Number(status) < 300)?.[1];
  if (success === 'file') return ['application/octet-stream'];
  if (success === 'string') return ['text/plain'];
  if (success === 'MarkdownRender' || success === 'MarkupRender') return ['text/html'];
  return ['application/json'];
}

/** The answers a route declares, plus those its guards give: 401 without a caller, 403 when refused, 404 for what the path names. */
function answersOf(route: RouteDefinition): Record<number, string> {
  const guarded: Record<number, string> = {};
  if (route.signedIn || route.admin || route.basicOnly || route.repo?.mode) guarded[401] = 'unauthorized';
  if (route.admin || route.repo?.unit || route.repo?.mode || route.org?.role || route.team) guarded[403] = 'forbidden';
  if (route.repo || route.org || route.team || route.ids?.length) guarded[404] = 'notFound';
  return { ...guarded, ...route.responses };
}

/**
 * The OpenAPI 2.0 description of /api/v1, generated from the same declarations that serve and validate it. Each
 * declared answer names its response as Gitea's description does (`200: 'Release'`); the document carries the
 * responses and definitions those names lead to (see openapi/shapes.ts).
 */
export function openApiDocument(routes: RouteDefinition[], rootUrl: string, version: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path));
  for (const route of sorted) {
    const responses = Object.fromEntries(Object.entries(answersOf(route)).map(([status, name]) => [status, responseFor(Number(status), name)]));
    (paths[route.path] ??= {})[route.method] = {
      tags: [route.tag],
      summary: route.summary,
      operationId: route.operationId,
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(route.body ? { consumes: ['application/json'] } : {}),
      produces: producesOf(route),
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
      SudoParam: { type: 'apiKey', name: 'sudo', in: 'query', description: 'Sudo API request as the user provided as the key. Admin privileges are required.' },
      SudoHeader: { type: 'apiKey', name: 'Sudo', in: 'header', description: 'Sudo API request as the user provided as the key. Admin privileges are required.' },
    },
    security: [{ BasicAuth: [] }, { Token: [] }, { AccessToken: [] }, { AuthorizationHeaderToken: [] }, { SudoParam: [] }, { SudoHeader: [] }, { TOTPHeader: [] }],
    paths,
    ...sectionsFor(paths),
  };
}
