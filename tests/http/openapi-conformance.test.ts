import test from 'ava';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import * as openpgp from 'openpgp';
import { isBodiless } from '../../api/openapi/shapes.js';
import { startHearth, type Answer, type CallOptions, type TestHearth } from '../helpers/hearth.js';

type Json = Record<string, any>;

/**
 * Fields Hearth renders that Gitea's description leaves out although Gitea renders them too (each with its reason).
 * Anything else outside a definition's properties is a renderer bug.
 */
const undocumentedFields: Record<string, string[]> = {
  // Gitea's convert.ToUser fills `username` beside `login` for backward compatibility; structs.User hides it from swagger.
  User: ['username'],
};

/** String fields that are `*string` in Gitea's structs (modules/structs), so null when unset, as Hearth renders them. */
const goStringPointers: Record<string, string[]> = {
  ContentsResponse: ['encoding', 'content', 'target', 'url', 'html_url', 'git_url', 'download_url', 'submodule_git_url'],
  FileLinksResponse: ['self', 'git', 'html'],
  PullRequest: ['merge_commit_sha'],
};

/**
 * Gitea's description is generated from Go structs, which it cannot mark nullable: pointers (objects), slices, maps and
 * `*time.Time` render as null when unset, while strings (but the `*string` ones above), numbers and booleans never do.
 * The schemas are read that way.
 */
function nullableLikeGo(property: Json, pointer: boolean): Json {
  const isPointerLike = pointer || property.$ref || property.type === 'object' || property.type === 'array' || property.format === 'date-time' || property['x-nullable'];
  return isPointerLike ? { anyOf: [property, { type: 'null' }] } : property;
}

/** A definition as the test checks it: no property outside its own (or the documented exceptions), Go's nulls allowed. */
function strictDefinition(name: string, schema: Json): Json {
  if (!schema.properties) return schema;
  const pointers = new Set(goStringPointers[name] ?? []);
  const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Json>).map(([key, value]) => [key, nullableLikeGo(value, pointers.has(key))]));
  for (const extra of undocumentedFields[name] ?? []) properties[extra] = {};
  return { ...schema, properties, additionalProperties: schema.additionalProperties ?? false };
}

/** A validator of each operation's answers by status, over the document's definitions. */
function validatorsOf(doc: Json): (operation: Json, status: number) => ValidateFunction | 'bodiless' | 'file' | null {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('email', true);
  ajv.addFormat('int64', { type: 'number', validate: Number.isSafeInteger });
  ajv.addFormat('int32', { type: 'number', validate: Number.isSafeInteger });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const definitions = Object.fromEntries(Object.entries(doc.definitions as Record<string, Json>).map(([name, schema]) => [name, strictDefinition(name, schema)]));
  ajv.addSchema({ $id: 'hearth', definitions });
  const anchored = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replaceAll('"#/definitions/', '"hearth#/definitions/'));
  const cache = new Map<string, ValidateFunction>();
  return (operation, status) => {
    const declared = operation.responses[status];
    if (!declared) return null;
    const response = declared.$ref ? doc.responses[declared.$ref.split('/').pop()] : declared;
    if (!response.schema) return isBodiless(status) ? 'bodiless' : null;
    if (response.schema.type === 'file') return 'file';
    const key = `${operation.operationId} ${status}`;
    if (!cache.has(key)) cache.set(key, ajv.compile(anchored(response.schema)));
    return cache.get(key)!;
  };
}

/**
 * Answers Gitea's description cannot state (OpenAPI 2.0 has no "one of"), read as the declared shape would hold them.
 * GET /repos/{owner}/{repo}/git/refs/{ref}: Gitea (routers/api/v1/repo/git_ref.go getGitRefsInternal) answers the one
 * Reference itself when the ref names exactly one, a ReferenceList otherwise; Hearth does the same.
 */
const readAs: Record<string, (body: unknown) => unknown> = {
  repoListGitRefs: (body) => (Array.isArray(body) ? body : [body]),
};

interface Conformance {
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  checked: Set<string>;
  /** What did not conform, one line each. */
  failures: string[];
}

/** Calls the API and checks the answer against the operation the path and method name in the document. */
function conformance(hearth: TestHearth, doc: Json): Conformance {
  const validatorFor = validatorsOf(doc);
  const operations = Object.entries(doc.paths as Record<string, Json>).map(([template, methods]) => ({
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{(filepath|archive|ref|tag|name)\}/g, '(.+)').replace(/\{\w+\}/g, '([^/]+)')}$`),
    literal: template.replace(/\{\w+\}/g, '').length,
    methods,
  }));
  const checked = new Set<string>();
  const failures: string[] = [];
  return {
    checked,
    failures,
    async call(method, path, options) {
      const answer = await hearth.call(method, path, options);
      const bare = path.split('?')[0];
      const matches = operations.filter((op) => op.pattern.test(bare) && op.methods[method.toLowerCase()]).sort((a, b) => b.literal - a.literal);
      const operation = matches[0]?.methods[method.toLowerCase()];
      if (!operation) {
        failures.push(`${method} ${path} is not in the document`);
        return answer;
      }
      const validate = validatorFor(operation, answer.status);
      const where = `${method} ${path} (${operation.operationId}) answered ${answer.status}`;
      if (validate === null) failures.push(`${where}, a status the document does not declare: ${JSON.stringify(answer.body).slice(0, 300)}`);
      else if (typeof validate === 'function') {
        const json = (answer.headers.get('content-type') ?? '').includes('json');
        const sent = json ? answer.body : String(answer.body ?? '');
        const body = readAs[operation.operationId]?.(sent) ?? sent;
        if (!validate(body)) failures.push(`${where}, not as documented: ${validate.errors?.slice(0, 6).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
        else checked.add(`${operation.operationId} ${answer.status}`);
      } else checked.add(`${operation.operationId} ${answer.status}`);
      return answer;
    },
  };
}

test('every response of every operation has a schema, or is a status without a body', async (t) => {
  const hearth = await startHearth(t);
  const doc = (await hearth.call('GET', '/swagger.v1.json')).body;
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const missing: string[] = [];
  for (const methods of Object.values(doc.paths as Record<string, Json>)) {
    for (const operation of Object.values(methods)) {
      for (const [status, declared] of Object.entries(operation.responses as Record<string, Json>)) {
        const response = declared.$ref ? doc.responses[declared.$ref.split('/').pop()!] : declared;
        if (!response) missing.push(`${operation.operationId} ${status}: ${declared.$ref} is not in responses`);
        else if (!response.schema && !isBodiless(Number(status)) && declared.$ref !== '#/responses/empty') missing.push(`${operation.operationId} ${status}: ${JSON.stringify(declared)}`);
      }
    }
  }
  t.deepEqual(missing, []);
  t.like(doc.paths['/repos/{owner}/{repo}/releases/{id}'].get.responses, { 200: { $ref: '#/responses/Release' }, 404: { $ref: '#/responses/notFound' } });
  t.deepEqual(doc.responses.Release, { description: 'Release', schema: { $ref: '#/definitions/Release' } });
  t.truthy(doc.definitions.Release.properties.author.$ref, 'definitions are copied with what they refer to');
  t.truthy(doc.definitions.User, 'Release refers to User, which is copied too');
  t.deepEqual(doc.responses.notFound.schema, { $ref: '#/definitions/APINotFound' });
});

async function gpgKey(email: string): Promise<string> {
  const { publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Test', email }], format: 'armored' });
  return publicKey;
}

test("sampled real answers, every readable GET among them, conform to the document's schemas", async (t) => {
  const hearth = await startHearth(t);
  const doc = (await hearth.call('GET', '/swagger.v1.json')).body;
  const { call, checked, failures } = conformance(hearth, doc);
  const alice = await hearth.createUser('alice', { admin: true });
  const bob = await hearth.createUser('bob');
  const as = { auth: alice.bearer };
  const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const answer = await call(method, path, { ...as, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  // State for the reads to find: an organization with a team and a repository, a repository with history, tags,
  // a release with an asset, statuses, protection, keys, collaborators, topics; an OAuth2 application.
  await ok('POST', '/orgs', { username: 'acme', full_name: 'Acme' });
  const team = await ok('POST', '/orgs/acme/teams', { name: 'devs', permission: 'write', units: ['repo.code', 'repo.releases'] });
  await ok('PUT', `/teams/${team.id}/members/bob`);
  await ok('POST', '/orgs/acme/repos', { name: 'site', auto_init: true });
  await ok('PUT', `/teams/${team.id}/repos/acme/site`);
  const label = await ok('POST', '/orgs/acme/labels', { name: 'bug', color: '#ee0701' });
  const repo = await ok('POST', '/user/repos', { name: 'tool', auto_init: true, description: 'a tool' });
  const written = await ok('POST', '/repos/alice/tool/contents/.editorconfig', { content: Buffer.from('[*]\nindent_style = space\n').toString('base64') });
  const head = written.commit.sha;
  await ok('POST', '/repos/alice/tool/branches', { new_branch_name: 'feature', old_ref_name: 'main' });
  await ok('POST', '/repos/alice/tool/branch_protections', { rule_name: 'main', enable_push: true });
  await ok('POST', '/repos/alice/tool/contents/pulled.txt', { content: Buffer.from('pulled\n').toString('base64'), branch: 'feature' });
  const pull = await ok('POST', '/repos/alice/tool/pulls', { head: 'feature', base: 'main', title: 'A pull request' });
  const tag = await ok('POST', '/repos/alice/tool/tags', { tag_name: 'v1', message: 'the first', target: 'main' });
  const release = await ok('POST', '/repos/alice/tool/releases', { tag_name: 'v1', name: 'One', body: 'notes' });
  const data = new FormData();
  data.append('attachment', new Blob(['bytes']), 'tool.bin');
  const asset = await (await fetch(`${hearth.rootUrl}api/v1/repos/alice/tool/releases/${release.id}/assets`, { method: 'POST', headers: { Authorization: alice.bearer }, body: data })).json();
  await ok('POST', `/repos/alice/tool/statuses/${head}`, { state: 'success', context: 'ci', target_url: 'https://ci.example/1' });
  const deployKey = await ok('POST', '/repos/alice/tool/keys', { title: 'deploy', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINhZdXT34gN+Dw3ydulBYnrxnt4cpt6jLwE55+v4+4/J deploy@example' });
  await ok('PUT', '/repos/alice/tool/collaborators/bob', { permission: 'read' });
  await ok('PUT', '/repos/alice/tool/topics/tools');
  await ok('PUT', '/user/starred/alice/tool');
  await ok('PUT', '/repos/alice/tool/subscription');
  await ok('PUT', '/user/following/bob');
  const userKey = await ok('POST', '/user/keys', { title: 'laptop', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB9dW9nyQ8jE4Pv5Q2Z1v5a0yQm5m1cZy8HqYb9n6cXr alice@laptop' });
  const gpg = await ok('POST', '/user/gpg_keys', { armored_public_key: await gpgKey('alice@example.com') });
  const app = await ok('POST', '/user/applications/oauth2', { name: 'ci', redirect_uris: ['https://ci.example/cb'] });
  await ok('PATCH', '/repos/alice/tool', { website: 'https://tool.example' });
  await ok('PATCH', `/repos/alice/tool/releases/${release.id}`, { name: 'One point oh' });
  await call('POST', '/markdown', { ...as, body: { text: '# hi' } });
  const blob = (await ok('GET', '/repos/alice/tool/contents/.editorconfig')).sha;

  const values: Record<string, string> = {
    owner: 'alice', repo: 'tool', org: 'acme', username: 'bob', target: 'bob', tag: 'v1', sha: head, ref: 'main', branch: 'main',
    collaborator: 'bob', team: 'devs', diffType: 'diff', basehead: 'feature...main', filepath: '.editorconfig', archive: 'main.zip',
    attachment_id: String(asset.id), name: 'main',
  };
  const byPath: Record<string, Record<string, string>> = {
    '/repositories/{id}': { id: String(repo.id) },
    '/repos/{owner}/{repo}/releases/{id}': { id: String(release.id) },
    '/repos/{owner}/{repo}/releases/{id}/assets': { id: String(release.id) },
    '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}': { id: String(release.id) },
    '/repos/{owner}/{repo}/keys/{id}': { id: String(deployKey.id) },
    '/teams/{id}': { id: String(team.id) },
    '/teams/{id}/members': { id: String(team.id) },
    '/teams/{id}/members/{username}': { id: String(team.id) },
    '/teams/{id}/repos': { id: String(team.id) },
    '/teams/{id}/repos/{org}/{repo}': { id: String(team.id), repo: 'site' },
    '/teams/{id}/activities/feeds': { id: String(team.id) },
    '/orgs/{org}/labels/{id}': { id: String(label.id) },
    '/user/keys/{id}': { id: String(userKey.id) },
    '/user/gpg_keys/{id}': { id: String(gpg.id) },
    '/user/applications/oauth2/{id}': { id: String(app.id) },
    '/repos/{owner}/{repo}/git/blobs/{sha}': { sha: blob },
    '/repos/{owner}/{repo}/git/tags/{sha}': { sha: tag.id },
    '/repos/{owner}/{repo}/git/notes/{sha}': {},
    '/gitignore/templates/{name}': { name: 'Node' },
    '/licenses/{name}': { name: 'MIT' },
    '/label/templates/{name}': { name: 'Default' },
    '/users/{username}/tokens': { username: 'alice' },
    '/users/{username}/orgs/{org}/permissions': { username: 'bob' },
    '/user/blocks/{username}': {},
    '/repos/{owner}/{repo}/git/refs/{ref}': { ref: 'heads/main' },
    '/repos/{owner}/{repo}/teams': { owner: 'acme', repo: 'site' },
    '/repos/{owner}/{repo}/teams/{team}': { owner: 'acme', repo: 'site' },
    '/repos/{owner}/{repo}/pulls/{index}': { index: String(pull.number) },
    '/repos/{owner}/{repo}/pulls/{index}.{diffType}': { index: String(pull.number) },
    '/repos/{owner}/{repo}/pulls/{index}/files': { index: String(pull.number) },
    '/repos/{owner}/{repo}/pulls/{index}/commits': { index: String(pull.number) },
    '/repos/{owner}/{repo}/pulls/{base}/{head}': { base: 'main', head: 'feature' },
  };
  const skipped: string[] = [];
  const missing: string[] = [];
  for (const [template, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!methods.get) continue;
    const given = { ...values, ...byPath[template] };
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    if (names.some((name) => given[name] === undefined) || (byPath[template] && Object.keys(byPath[template]).length === 0)) {
      skipped.push(template);
      continue;
    }
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'filepath' || name === 'ref' || name === 'basehead' ? given[name] : encodeURIComponent(given[name])));
    const answer = await call('GET', path, template.startsWith('/users/{username}/tokens') ? { auth: alice.basic } : as);
    if (answer.status >= 400) missing.push(`${path}: ${answer.status}`);
  }
  // A few answers of other callers: anonymous, a stranger, a refused write, a validation error.
  await call('GET', '/repos/alice/nothing');
  await call('GET', '/user');
  await call('PATCH', '/repos/alice/tool', { auth: bob.bearer, body: { description: 'x' } });
  await call('POST', '/user/repos', { ...as, body: { name: '' } });
  await call('DELETE', `/repos/alice/tool/keys/${deployKey.id}`, as);
  const gets = Object.values(doc.paths as Record<string, Json>).filter((methods) => methods.get).length;
  t.log(`GETs that found nothing to show (checked as error bodies): ${missing.join(', ')}`);
  t.log(`${checked.size} operation answers checked; ${gets - skipped.length} of ${gets} GET paths called; not called: ${skipped.join(', ')}`);
  t.deepEqual(failures, []);
  t.true(checked.size > 120);
});

test('the check refuses what does not conform: an unknown field, a null string, a wrong type', async (t) => {
  const hearth = await startHearth(t);
  const doc = (await hearth.call('GET', '/swagger.v1.json')).body;
  const alice = await hearth.createUser('alice');
  const repo = (await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'tool' } })).body;
  const validate = validatorsOf(doc)(doc.paths['/repos/{owner}/{repo}'].get, 200) as ValidateFunction;
  t.true(validate(repo), JSON.stringify(validate.errors));
  t.false(validate({ ...repo, extra: 1 }), 'a field the definition does not have');
  t.false(validate({ ...repo, name: null }), 'a string field rendered as null');
  t.false(validate({ ...repo, stars_count: '0' }), 'a number rendered as a string');
  t.false(validate({ ...repo, owner: { ...repo.owner, id: 'x' } }), 'inside a referred definition');
  t.true(validate({ ...repo, parent: null }), 'a pointer field may be null, as Go renders it');
  t.true(validate({ ...repo, owner: { ...repo.owner, username: 'alice' } }), "User's documented exception");
});
