import http from 'node:http';
import fc from 'fast-check';
import type { TestHearth } from '../helpers/hearth.js';
import { alwaysTriedRequests, badRequestsFor, type BadRequest } from './bad-input.js';
import { operationsOf, type Operation } from './document.js';
import { createFixtures, type Fixtures } from './fixtures.js';
import { differences, snapshot, snapshotQuery, tableNames, type State } from './state.js';

export interface FuzzOptions {
  /** Requests per operation. */
  perOperation: number;
  seed: number;
}

export interface Finding {
  operation: string;
  kind: string;
  caller: string;
  status: number;
  problem: string;
}

export interface Totals {
  operations: number;
  requests: number;
  byClass: Record<string, number>;
  /** Accepted (2xx) requests that changed something: legitimate, counted so the report shows how much the fuzz wrote. */
  acceptedWrites: number;
  findings: Finding[];
  fixturesIntact: boolean;
  fixtureProblems: string[];
}

/** Operations whose success would take the fixtures away: only ever sent with a path that names nothing. */
const destructive = (op: Operation): boolean =>
  (op.method === 'DELETE' && op.pathParams.length > 0) || /\/(transfer|rename|accept|reject)(\/|$)/.test(op.path);

/** Internals that must never reach a client: stack frames, source paths, SQL and its errors, system call errors, the data directory. */
const leakPatterns: RegExp[] = [
  /\bat [\w.<>]+ \([^)]*:\d+:\d+\)/, /node_modules/, /\.[cm]?[jt]s:\d+/, /QueryFailedError/, /\bSELECT\b[\s\S]{0,200}\bFROM\b/,
  /\bINSERT INTO\b/, /\bUPDATE\b \S+ \bSET\b/, /duplicate key value/, /violates [\w ]*constraint/, /syntax error at/, /invalid byte sequence/,
  /\bE(NAMETOOLONG|2BIG|NOENT|ACCES|ISDIR|NOTDIR)\b/, /\bfatal: /, /hearth-data-/, /pg_catalog|relation "/,
];

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(hearth: TestHearth, auth: string | undefined, request: BadRequest): Promise<{ status: number; text: string }> {
  const url = new URL(hearth.rootUrl);
  const headers: Record<string, string> = { ...request.headers };
  if (auth) headers.Authorization = auth;
  if (request.body) headers['Content-Length'] = String(request.body.length);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, method: request.method, agent, headers,
      path: `/api/v1${request.path}${request.query ? `?${request.query}` : ''}`,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.end(request.body);
  });
}

/** The text of what was sent, to tell a leak from an echo of the caller's own input (markdown renders what it is given). */
const sentText = (request: BadRequest): string => `${decodeURIComponentSafe(request.path)} ${decodeURIComponentSafe(request.query)} ${request.body?.toString('utf8') ?? ''}`;

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Fixtures still there and working: every fixture repository with the refs it had, the callers' tokens, the wiki page, the team. */
async function checkFixtures(hearth: TestHearth, fixtures: Fixtures, refsBefore: State['refs']): Promise<string[]> {
  const problems: string[] = [];
  for (const repo of fixtures.repos) {
    const answer = await hearth.call('GET', `/repos/${repo.owner}/${repo.name}`, { auth: fixtures.auth.user });
    if (answer.status !== 200 || answer.body.id !== repo.id) problems.push(`repository ${repo.owner}/${repo.name}: ${answer.status}`);
  }
  const after = (await snapshot(hearth, 'SELECT 1 AS name, 1 AS digest')).refs;
  for (const [ref, sha] of refsBefore) if (after.get(ref) !== sha) problems.push(`ref ${ref} changed`);
  for (const caller of ['admin', 'user', 'narrow'] as const) {
    const answer = await hearth.call('GET', '/repos/fuzzuser/public', { auth: fixtures.auth[caller] });
    if (answer.status !== 200) problems.push(`the ${caller} token: ${answer.status}`);
  }
  const page = await hearth.call('GET', `/repos/fuzzuser/public/wiki/page/${fixtures.wikiPage}`, { auth: fixtures.auth.user });
  if (page.status !== 200) problems.push(`wiki page: ${page.status}`);
  const team = await hearth.call('GET', `/teams/${fixtures.teamId}`, { auth: fixtures.auth.user });
  if (team.status !== 200) problems.push(`team: ${team.status}`);
  return problems;
}

/**
 * Reads the served document, makes the fixtures, then sends `perOperation` generated bad requests to every
 * declared operation, one at a time, comparing the database and the refs on disk around each one.
 */
export async function fuzz(hearth: TestHearth, options: FuzzOptions, progress: (line: string) => void = () => undefined): Promise<Totals> {
  const document = await hearth.call('GET', '/swagger.v1.json');
  const operations = operationsOf(document.body);
  const fixtures = await createFixtures(hearth);
  const query = snapshotQuery(await tableNames(hearth));
  let state = await snapshot(hearth, query);
  const fixtureRefs = new Map([...state.refs].filter(([ref]) => fixtures.repos.some((repo) => ref.startsWith(`${repo.owner}/${repo.name}.git `))));
  const totals: Totals = { operations: operations.length, requests: 0, byClass: {}, acceptedWrites: 0, findings: [], fixturesIntact: false, fixtureProblems: [] };

  let readsSinceSnapshot = 0;
  for (const [index, op] of operations.entries()) {
    const requests = [
      ...alwaysTriedRequests(op, fixtures),
      ...fc.sample(badRequestsFor(op, fixtures, destructive(op)), { numRuns: options.perOperation, seed: options.seed + index }),
    ];
    for (const request of requests) {
      const name = `${op.method} ${op.path}`;
      const record = (status: number, problem: string): void => {
        totals.findings.push({ operation: name, kind: request.kind, caller: request.caller, status, problem });
      };
      let answer: { status: number; text: string };
      try {
        answer = await send(hearth, fixtures.auth[request.caller], request);
      } catch (error) {
        record(0, `no answer: ${(error as Error).message}`);
        continue;
      }
      totals.requests++;
      const statusClass = `${Math.floor(answer.status / 100)}xx`;
      totals.byClass[statusClass] = (totals.byClass[statusClass] ?? 0) + 1;
      if (answer.status >= 500) record(answer.status, answer.text.slice(0, 200));
      if (answer.status < 300 && request.breaksDocument) record(answer.status, 'accepted a value the document refuses');
      const sent = sentText(request);
      for (const pattern of leakPatterns) {
        const match = pattern.exec(answer.text);
        if (match && !sent.includes(match[0])) record(answer.status, `leak ${pattern}: ${answer.text.slice(Math.max(0, match.index - 60), match.index + 100)}`);
      }
      // reads are compared in batches (a change is then reported against the batch's last read); writes one by one
      if (op.method !== 'GET' || ++readsSinceSnapshot >= 8) {
        readsSinceSnapshot = 0;
        const after = await snapshot(hearth, query);
        const changed = differences(state, after);
        if (changed.length && answer.status >= 400) record(answer.status, `refused request changed ${changed.join(', ')}`);
        if (changed.length && answer.status < 400) totals.acceptedWrites++;
        state = after;
      }
    }
    progress(`${index + 1}/${operations.length} ${op.method} ${op.path}: ${totals.requests} requests, ${totals.findings.length} findings`);
  }
  totals.fixtureProblems = await checkFixtures(hearth, fixtures, fixtureRefs);
  totals.fixturesIntact = totals.fixtureProblems.length === 0;
  return totals;
}

/** Totals as the full run prints them: requests, by status class, the 5xx answers by operation, leaks and state changes. */
export function describeTotals(totals: Totals): string {
  const lines = [
    `operations: ${totals.operations}`,
    `requests: ${totals.requests}`,
    `by status class: ${Object.entries(totals.byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `accepted requests that wrote: ${totals.acceptedWrites}`,
  ];
  const serverErrors = totals.findings.filter((f) => f.status >= 500 || f.status === 0);
  const byOperation = new Map<string, Finding[]>();
  for (const finding of serverErrors) byOperation.set(finding.operation, [...(byOperation.get(finding.operation) ?? []), finding]);
  lines.push(`5xx: ${serverErrors.length} across ${byOperation.size} operations`);
  for (const [operation, list] of byOperation) lines.push(`  ${operation}: ${list.length} (${[...new Set(list.map((f) => f.kind))].join(', ')}) e.g. ${list[0].problem.slice(0, 120)}`);
  const leaks = totals.findings.filter((f) => f.problem.startsWith('leak'));
  lines.push(`leaks: ${leaks.length}`);
  for (const leak of leaks.slice(0, 20)) lines.push(`  ${leak.operation} ${leak.kind} ${leak.caller}: ${leak.problem.slice(0, 200)}`);
  const changes = totals.findings.filter((f) => f.problem.startsWith('refused request changed'));
  const accepted = totals.findings.filter((f) => f.problem.startsWith('accepted a value'));
  lines.push(`accepted values the document refuses: ${accepted.length}`);
  for (const finding of accepted.slice(0, 20)) lines.push(`  ${finding.operation} ${finding.kind} ${finding.caller} ${finding.status}`);
  lines.push(`refused requests that changed state: ${changes.length}`);
  for (const change of changes.slice(0, 20)) lines.push(`  ${change.operation} ${change.kind} ${change.caller} ${change.status}: ${change.problem}`);
  lines.push(`fixtures intact: ${totals.fixturesIntact ? 'yes' : `no (${totals.fixtureProblems.join('; ')})`}`);
  return lines.join('\n');
}
