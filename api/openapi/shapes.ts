import gitea from './gitea-1.22-shapes.json' with { type: 'json' };
import { actionsRunDefinitions } from './actions-runs.js';
import { hearthMonitorDefinitions } from './hearth-monitor.js';

export type Schema = Record<string, unknown>;

export interface ResponseObject {
  description: string;
  schema?: Schema;
  headers?: Record<string, Schema>;
}

const giteaDefinitions = gitea.definitions as unknown as Record<string, Schema>;
const giteaResponses = gitea.responses as unknown as Record<string, ResponseObject>;

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });

/** A definition of Gitea's with the fields Hearth adds to it (Gitea's clients ignore fields they do not know). */
function extendGitea(name: string, properties: Record<string, Schema>): Schema {
  const base = giteaDefinitions[name];
  return { ...base, properties: { ...(base.properties as Record<string, Schema>), ...properties } };
}

/** Shapes Hearth renders that Gitea's description lacks, or leaves without a schema although a body is sent. */
const hearthDefinitions: Record<string, Schema> = {
  ...actionsRunDefinitions,
  ...hearthMonitorDefinitions,
  Repository: extendGitea('Repository', {
    mirror_next_update: {
      description: "when the pull mirror's next scheduled sync is due, null when it has no schedule (Hearth's own; on mirrors only)",
      type: 'string', format: 'date-time', 'x-nullable': true,
    },
    mirror_last_error: {
      description: "why the pull mirror's last sync failed, empty once one succeeded (Hearth's own; on mirrors only)", type: 'string',
    },
  }),
  APINotFound: {
    description: "APINotFound is the body of a 404: Gitea's error with the list of what was not found",
    type: 'object',
    properties: { errors: { type: 'array', items: { type: 'string' } }, message: { type: 'string' }, url: { type: 'string' } },
  },
  APIInvalidTopicsError: {
    description: 'APIInvalidTopicsError is the body of a refused topics change: the message and the offending topics',
    type: 'object',
    properties: { invalidTopics: { description: 'the refused topic names (a list, one name, or null)' }, message: { type: 'string' }, url: { type: 'string' } },
  },
  HookDelivery: {
    description: "One delivery of a hook (Hearth's own): the hook task and its latest attempt",
    type: 'object',
    properties: {
      id: { type: 'integer', format: 'int64' }, uuid: { type: 'string' }, event: { type: 'string' }, event_type: { type: 'string' },
      delivered: { type: 'boolean' }, succeeded: { type: 'boolean' }, refused: { type: 'string', 'x-nullable': true },
      attempts: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' },
      delivered_at: { type: 'string', format: 'date-time', 'x-nullable': true }, duration_ms: { type: 'integer', 'x-nullable': true },
      request: {
        type: 'object', 'x-nullable': true,
        properties: { url: { type: 'string' }, method: { type: 'string' }, headers: { type: 'object', additionalProperties: { type: 'string' } }, body: { type: 'string' } },
      },
      response: {
        type: 'object', 'x-nullable': true,
        properties: { status: { type: 'integer' }, headers: { type: 'object', additionalProperties: { type: 'string' } }, body: { type: 'string' } },
      },
      error: { type: 'string', 'x-nullable': true },
    },
  },
  EditorConfigDefinition: {
    description: 'the EditorConfig properties that apply to a file',
    type: 'object',
    additionalProperties: { type: 'string' },
  },
};

const errorResponse = (description: string, definition = 'APIError'): ResponseObject => ({ description, schema: ref(definition) });

/**
 * Hearth's responses: Gitea's error responses given the schema of the body Hearth sends with them (Gitea's
 * description declares none), and the answers of Gitea's description that are inline there.
 */
const hearthResponses: Record<string, ResponseObject> = {
  error: errorResponse('APIError is error format response'),
  forbidden: errorResponse('APIForbiddenError is a forbidden error response'),
  unauthorized: errorResponse('APIUnauthorizedError: the caller is not known, or its credentials are wrong'),
  validationError: errorResponse('APIValidationError is error format response related to input validation'),
  repoArchivedError: errorResponse('APIRepoArchivedError is an error that is raised when an archived repo should be modified'),
  conflict: errorResponse('APIConflict is a conflict error response'),
  notFound: errorResponse('APINotFound is a not found response', 'APINotFound'),
  invalidTopicsError: errorResponse('APIInvalidTopicsError is error format response to invalid topics', 'APIInvalidTopicsError'),
  file: { description: 'the file, as it is stored', schema: { type: 'file' } },
  EditorConfig: { description: 'EditorConfig definitions of a file', schema: ref('EditorConfigDefinition') },
  UserSearchResults: {
    description: 'SearchResults of a successful search',
    schema: { type: 'object', properties: { data: { type: 'array', items: ref('User') }, ok: { type: 'boolean' } } },
  },
  // Gitea's description says these two are arrays; Gitea (and Hearth) answer objects: `{"topics": [...]}` from
  // routers/api/v1/repo/topic.go TopicSearch, and one UserSettings from routers/api/v1/user/settings.go GetUserSettings.
  TopicListResponse: {
    description: 'TopicListResponse',
    schema: { type: 'object', properties: { topics: { type: 'array', items: ref('TopicResponse') } } },
  },
  UserSettings: { description: 'UserSettings', schema: ref('UserSettings') },
  HookDeliveryList: { description: 'HookDeliveryList', schema: { type: 'array', items: ref('HookDelivery') } },
  // Gitea's description gives the token as a header; Gitea (and Hearth) answer `{"token": "..."}` (routers/api/v1/shared/runners.go).
  RegistrationToken: {
    description: 'RegistrationToken is response related to registration token',
    schema: { type: 'object', properties: { token: { type: 'string' } } },
  },
  TeamSearchResults: {
    description: 'SearchResults of a successful search',
    schema: { type: 'object', properties: { data: { type: 'array', items: ref('Team') }, ok: { type: 'boolean' } } },
  },
};

/** Statuses that never carry a body, whose response needs no schema. */
export function isBodiless(status: number): boolean {
  return status < 200 || status === 204 || status === 205 || status === 304 || (status >= 300 && status < 400);
}

function definitionOf(name: string): Schema | undefined {
  return hearthDefinitions[name] ?? giteaDefinitions[name];
}

function responseOf(name: string): ResponseObject | undefined {
  return hearthResponses[name] ?? giteaResponses[name];
}

/**
 * The response object of a declared answer, by the name the declaration gives (as Gitea's description names them):
 * a response of Gitea's (or Hearth's) `responses`, else a definition, else an error status with the error body Hearth
 * sends for it, else only a description (right for a status without a body; the OpenAPI test lists any other).
 */
export function responseFor(status: number, name: string): Schema {
  const response = responseOf(name);
  // Gitea's `empty` is an answer without a body, whatever its status
  if (response && (response.schema || isBodiless(status) || name === 'empty')) return { $ref: `#/responses/${name}` };
  if (definitionOf(name)) return { description: name, schema: ref(name) };
  if (status >= 400) return errorResponse(response?.description ?? name, status === 404 ? 'APINotFound' : 'APIError') as unknown as Schema;
  return { description: response?.description ?? name };
}

/** Every `#/definitions/…` and `#/responses/…` a value refers to. */
function* refsIn(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    for (const item of value) yield* refsIn(item);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') yield item;
      else yield* refsIn(item);
    }
  }
}

/** The `responses` and `definitions` sections a document's paths need: what they refer to, and what that refers to in turn. */
export function sectionsFor(paths: unknown): { responses: Record<string, ResponseObject>; definitions: Record<string, Schema> } {
  const responses: Record<string, ResponseObject> = {};
  const definitions: Record<string, Schema> = {};
  const pending = [...refsIn(paths)];
  while (pending.length > 0) {
    const target = pending.pop()!;
    const [, section, name] = /^#\/(responses|definitions)\/(.+)$/.exec(target) ?? [];
    if (section === 'responses' && !responses[name]) {
      const found = responseOf(name);
      if (!found) throw new Error(`no response named ${name}`);
      responses[name] = found;
      pending.push(...refsIn(found));
    } else if (section === 'definitions' && !definitions[name]) {
      const found = definitionOf(name);
      if (!found) throw new Error(`no definition named ${name}`);
      definitions[name] = found;
      pending.push(...refsIn(found));
    }
  }
  return { responses: sortedByKey(responses), definitions: sortedByKey(definitions) };
}

const sortedByKey = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
