import fc from 'fast-check';
import type { Operation, Parameter, Schema } from './document.js';
import type { CallerName, Fixtures } from './fixtures.js';

/** One generated request: everything already encoded as it goes on the wire. */
export interface BadRequest {
  /** What was made wrong, e.g. `path:owner:traversal`, `body:huge-string`. */
  kind: string;
  caller: CallerName;
  method: string;
  /** The path after /api/v1, percent-encoded. */
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The request breaks a bound or a type the document states for a field, so no answer may be a success. */
  breaksDocument?: boolean;
}

const MiB = 1024 * 1024;
const callers: CallerName[] = ['admin', 'user', 'narrow', 'anonymous'];

/** A plausible value for each path parameter, so that only the part under test is wrong. */
function validParams(op: Operation, fixtures: Fixtures, repoIndex: number): Record<string, string> {
  const repo = fixtures.repos[repoIndex % fixtures.repos.length];
  const segments = op.path.split('/');
  const idFor = (name: string): string => {
    const before = segments[segments.indexOf(`{${name}}`) - 1];
    const byResource: Record<string, number> = {
      teams: fixtures.teamId, releases: fixtures.releaseId, repositories: repo.id, labels: fixtures.labelId, keys: fixtures.keyId,
    };
    return String(byResource[before] ?? 1);
  };
  const values: Record<string, string> = {
    owner: repo.owner, repo: repo.name, template_owner: repo.owner, template_repo: repo.name, org: fixtures.org,
    username: fixtures.user, user: fixtures.other, target: fixtures.other, collaborator: fixtures.other, team: 'devs',
    sha: fixtures.sha, branch: fixtures.branch, tag: fixtures.tag, ref: 'heads/main', filepath: fixtures.file, name: 'main',
    topic: 'fuzz', token: 'fuzz-missing', archive: 'main.zip', basehead: 'main...feature', diffType: 'diff', task: 'update_mirrors',
    attachment_id: '1', pageName: fixtures.wikiPage,
  };
  return Object.fromEntries(op.pathParams.map((p) => [p.name, p.format === 'int64' ? idFor(p.name) : (values[p.name] ?? 'fuzz')]));
}

function fillPath(path: string, params: Record<string, string>, encoded: Set<string> = new Set()): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => (encoded.has(name) ? params[name] : encodeURIComponent(params[name]).replace(/%2F/g, '/')));
}

const nonAscii = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => /[^\x20-\x7e]/.test(s));

/** Path parameter values that name nothing, already encoded: traversal, NUL, 256+ bytes, past int64, not UTF-8. */
const badPathValue: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['traversal', '..'], ['traversal', '%2e%2e'], ['traversal', '..%2F..%2F..%2F..%2Fetc%2Fpasswd'], ['traversal', 'a%2F..%2F..%2Fb'],
    ['traversal', 'refs%2Fheads%2F..%2F..%2Fconfig'], ['nul', 'a%00b'], ['nul', '%00'], ['past-int64', '99999999999999999999'],
    ['past-int64', '9223372036854775808'], ['negative', '-1'], ['zero', '0'], ['fraction', '1.5'], ['exponent', '1e3'], ['git-dir', '.git'],
    ['not-utf8', '%ff%fe'], ['space', '%20'], ['dot', '.'], ['lock', 'main.lock'], ['option', '--upload-pack=touch'], ['hash', '%23'],
  ),
  fc.integer({ min: 256, max: 4096 }).map((n): [string, string] => ['long', 'a'.repeat(n)]),
  fc.integer({ min: 130, max: 200 }).map((n): [string, string] => ['huge', 'b'.repeat(n * 1024)]),
  nonAscii.map((s): [string, string] => ['unicode', encodeURIComponent(s)]),
);

/**
 * Path parameters whose wrong values are sent to every operation that has them, on every run, as the signed-in user
 * (who may write): a class of bad input that was once a 500 stays tried however few requests the sample makes.
 */
const alwaysTried: Record<string, Array<[string, string]>> = {
  // names a wiki page cannot have: `.` and `..` (escaped too, which a URL parser resolves away), a `.git` component
  pageName: [['dot', '.'], ['traversal', '..'], ['traversal', '%2e%2e'], ['traversal', '.%2E'], ['dot', '%2e'], ['git-dir', '.git%2Fconfig.md']],
};

/** The fixed path-parameter cases of an operation (see alwaysTried). */
export function alwaysTriedRequests(op: Operation, fixtures: Fixtures): BadRequest[] {
  return op.pathParams.flatMap((p) => (alwaysTried[p.name] ?? []).map(([kind, value]): BadRequest => ({
    kind: `path:${p.name}:${kind}`, caller: 'user', method: op.method,
    path: fillPath(op.path, { ...validParams(op, fixtures, 0), [p.name]: value }, new Set([p.name])), query: '', headers: {},
  })));
}

const badPaging = fc.constantFrom(
  'page=-1', 'page=0', 'limit=1e12', 'limit=-1', 'page=abc', 'page=99999999999999999999', 'limit=1.5', 'page=1&page=2', 'page[a]=1',
  'limit=%00', 'page=1e400', 'limit=9223372036854775808', 'page=-9223372036854775809&limit=0',
);

/** Integers just outside int32 and int64, negative counts, fractions and numbers JSON can spell but no column holds. */
function badIntegers(schema: Schema): unknown[] {
  const int32 = schema.format === 'int32' || schema.maximum === 2 ** 31 - 1;
  return [
    ...(int32 ? [2 ** 31, -(2 ** 31) - 1] : []), 2 ** 31, 2 ** 63, -(2 ** 63) - 1024, 9007199254740993, -1, 1.5, 1e308, -1e308,
  ];
}

const hugeString = 'x'.repeat(MiB);
const strangeStrings = ['\u0000', 'a\u0000b', '\ud800', '\u202e\u0645\u0631\u062d\u0628\u0627', '😀'.repeat(300), '..', '../../etc/passwd', '%00', ' ', 'a'.repeat(256), 'b'.repeat(129 * 1024)];

/** A value of the wrong JSON type for a schema. */
function wrongTypes(schema: Schema): unknown[] {
  switch (schema.type) {
    case 'string': return [1, true, [], {}, ['a'], -0.5];
    case 'integer': case 'number': return ['1', true, [], {}, 'NaN', 'Infinity'];
    case 'boolean': return ['true', 1, 0, [], {}, 'yes'];
    case 'array': return ['a', 1, {}, true, [[[]]], [{}], [1, 'a', null]];
    case 'object': return ['a', 1, [], true];
    default: return [1, 'a', [], {}, true];
  }
}

function badValues(schema: Schema): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = wrongTypes(schema).map((value) => ['wrong-type', value]);
  if (schema.type === 'integer' || schema.type === 'number') out.push(...badIntegers(schema).map((value): [string, unknown] => ['out-of-range', value]));
  if (schema.type === 'string' || schema.type === undefined) {
    out.push(['huge-string', hugeString], ...strangeStrings.map((value): [string, unknown] => ['strange-string', value]));
  }
  if (schema.type === 'array') {
    out.push(['huge-array', Array.from({ length: 10_000 }, (_, i) => `item${i}`)], ['array-of-huge', [hugeString]],
      ['array-of-strange', strangeStrings], ['array-of-integers', badIntegers({ format: 'int32' })]);
  }
  if (schema.type === 'object' && schema.properties) {
    for (const [name, property] of Object.entries(schema.properties)) for (const [kind, value] of badValues(property).slice(0, 6)) out.push([`nested-${kind}`, { [name]: value }]);
  }
  return out;
}

/** A value of the right type for a required field, so that the one bad field is what validation meets. */
function plausible(schema: Schema): unknown {
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'string': return 'fuzz-value';
    case 'integer': case 'number': return 1;
    case 'boolean': return false;
    case 'array': return [];
    case 'object': return {};
    default: return 'fuzz-value';
  }
}

function requiredOnly(schema: Schema): Record<string, unknown> {
  return Object.fromEntries((schema.required ?? []).map((name) => [name, plausible(schema.properties?.[name] ?? {})]));
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** Whether a value breaks what the document says of its field: its JSON type, its maxLength, its minimum or maximum. */
function breaks(schema: Schema, value: unknown): boolean {
  const kinds: Record<string, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string', integer: (v) => typeof v === 'number' && Number.isInteger(v), number: (v) => typeof v === 'number',
    boolean: (v) => typeof v === 'boolean', array: Array.isArray, object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  };
  if (schema.type && kinds[schema.type] && !kinds[schema.type](value)) return true;
  if (typeof value === 'string' && schema.maxLength !== undefined && [...value].length > schema.maxLength) return true;
  if (typeof value === 'number' && ((schema.maximum !== undefined && value > schema.maximum) || (schema.minimum !== undefined && value < schema.minimum))) return true;
  return false;
}

/** Bodies: one field wrong (type, range, size, text), required fields missing, extra fields, not JSON, not UTF-8, nested. */
function badBodies(schema: Schema): fc.Arbitrary<[string, Buffer, boolean?]> {
  const fields = Object.entries(schema.properties ?? {});
  const perField: Array<[string, Buffer, boolean]> = [];
  for (const [name, property] of fields) {
    for (const [kind, value] of badValues(property)) perField.push([`body:${name}:${kind}`, json({ ...requiredOnly(schema), [name]: value }), breaks(property, value)]);
  }
  const shape: Array<[string, Buffer, boolean?]> = [
    ['body:missing-required', json({})], ['body:extra-fields', json({ ...requiredOnly(schema), extra: hugeString.slice(0, 1000), __proto__x: { a: 1 } })],
    ['body:array', json([requiredOnly(schema)])], ['body:string', json('fuzz')], ['body:number', json(1e308)], ['body:null', Buffer.from('null')],
    ['body:not-json', Buffer.from('{"a":')], ['body:not-utf8', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')])],
    ['body:nested-25', Buffer.from(`{"a":${'['.repeat(25)}${']'.repeat(25)}}`)], ['body:nested-100k', Buffer.from('['.repeat(100_000) + ']'.repeat(100_000))],
    ['body:nested-object', Buffer.from('{"a":'.repeat(30_000) + '1' + '}'.repeat(30_000))],
    ['body:huge-keys', json(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))],
  ];
  if (fields.length === 0) return fc.constantFrom(...shape);
  return fc.oneof({ arbitrary: fc.constantFrom(...perField), weight: 3 }, { arbitrary: fc.constantFrom(...shape), weight: 1 });
}

/** Query parameters the operation declares, each given a bad value. */
function badQueries(params: Parameter[]): fc.Arbitrary<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const p of params) {
    const schema: Schema = { type: p.type, format: p.format };
    const values = [...wrongTypes(schema).filter((v) => typeof v !== 'object'), ...(p.type === 'integer' ? badIntegers(schema) : []), 'a'.repeat(300 * 1024), '%00', '..', '\u202e'];
    for (const value of values) {
      const text = String(value) === '%00' ? '%00' : encodeURIComponent(String(value));
      entries.push([`query:${p.name}`, `${encodeURIComponent(p.name)}=${text}`]);
    }
  }
  return entries.length ? fc.constantFrom(...entries) : badPaging.map((q): [string, string] => ['query:paging', q]);
}

/** Everything the fuzzer may send to one operation. */
export function badRequestsFor(op: Operation, fixtures: Fixtures, destructive: boolean): fc.Arbitrary<BadRequest> {
  const variants: Array<fc.Arbitrary<Omit<BadRequest, 'caller' | 'method'>>> = [];
  const base = (repoIndex: number): Record<string, string> => validParams(op, fixtures, repoIndex);
  if (op.pathParams.length) {
    variants.push(fc.record({ repoIndex: fc.nat(), param: fc.constantFrom(...op.pathParams.map((p) => p.name)), value: badPathValue })
      .map(({ repoIndex, param, value: [kind, value] }) => ({
        kind: `path:${param}:${kind}`, path: fillPath(op.path, { ...base(repoIndex), [param]: value }, new Set([param])), query: '', headers: {},
      })));
  }
  if (!destructive || op.pathParams.length === 0) {
    variants.push(fc.record({ repoIndex: fc.nat(), paging: badPaging }).map(({ repoIndex, paging }) => ({
      kind: 'query:paging', path: fillPath(op.path, base(repoIndex)), query: paging, headers: {},
    })));
    if (op.queryParams.length) {
      variants.push(fc.record({ repoIndex: fc.nat(), q: badQueries(op.queryParams) }).map(({ repoIndex, q: [kind, query] }) => ({
        kind, path: fillPath(op.path, base(repoIndex)), query, headers: {},
      })));
    }
    if (op.body) {
      const bodies = badBodies(op.body);
      variants.push(fc.record({ repoIndex: fc.nat(), body: bodies, contentType: fc.constantFrom('application/json', 'application/json', 'text/plain') })
        .map(({ repoIndex, body: [kind, body, breaksDocument], contentType }) => ({
          kind, path: fillPath(op.path, base(repoIndex)), query: '', headers: { 'Content-Type': contentType }, body, breaksDocument,
        })));
    }
    variants.push(fc.record({ repoIndex: fc.nat(), sudo: fc.constantFrom('sudo=%00fuzzuser', 'sudo=fuzz%00', `sudo=${'s'.repeat(300)}`, 'sudo=..%2F..', 'sudo=%ff') })
      .map(({ repoIndex, sudo }) => ({ kind: 'query:sudo', path: fillPath(op.path, base(repoIndex)), query: sudo, headers: {} })));
  }
  return fc.record({ caller: fc.constantFrom(...callers), variant: fc.oneof(...variants) })
    .map(({ caller, variant }) => ({ ...variant, caller, method: op.method }));
}
