import type { ExecutionContext } from 'ava';
import { Ajv } from 'ajv';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { toUserRow, type UserRow } from '../../db/models/users/user-row.js';
import { inTx } from '../../db/data-source.js';
import { accessModeOf } from '../../db/models/access.js';
import { changeRepoFiles } from '../../db/models/code/contents.js';
import { findRepoById } from '../../db/models/repos/repos.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

export const actionsOn = { HEARTH__actions__ENABLED: 'true' };

export async function actionsHearth(t: ExecutionContext, settings: Record<string, string> = {}): Promise<TestHearth> {
  return startHearth(t, { ...actionsOn, ...settings });
}

/** Commits files onto a branch (the default one unless named) and runs the jobs that follow: sync, notify, trigger. */
export async function push(h: TestHearth, repo: RepoRow, files: Record<string, string>, options: { branch?: string; newBranch?: string; by?: UserRow } = {}): Promise<string> {
  const written = await inTx(h.deps, async (tx) => {
    const row = (await findRepoById(tx, repo.id))!;
    const doer = options.by ?? toUserRow((await tx.query('SELECT * FROM "user" WHERE id = $1', [row.owner_id]))[0]);
    const reader = h.deps.git.open(row);
    const head = await reader.resolve(`refs/heads/${options.branch ?? row.default_branch}`);
    const commit = head ? await reader.findCommit(head) : null;
    const operations = [];
    for (const [path, content] of Object.entries(files)) {
      const exists = commit ? await reader.entryAt(commit, path) : null;
      operations.push({ operation: exists ? 'update' as const : 'create' as const, path, content: Buffer.from(content) });
    }
    const mode = await accessModeOf(tx, doer, row);
    return changeRepoFiles(tx, h.deps, row, doer, mode, { branch: options.branch, new_branch: options.newBranch }, operations);
  });
  await drain(h);
  return written.commitId;
}

export interface Runner {
  uuid: string;
  token: string;
}

/** A runner's Connect call in JSON: the answer's status and body. */
export async function json(h: TestHearth, procedure: string, body: unknown, runner?: Runner): Promise<{ status: number; body: any }> {
  const response = await fetch(`${h.rootUrl}api/actions/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...(runner ? { 'x-runner-uuid': runner.uuid, 'x-runner-token': runner.token } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A runner of the repository `owner/repo`, registered (JSON) with the token its administrator `auth` was issued. */
export async function registerRunner(h: TestHearth, auth: string, owner: string, repo: string, labels = ['ubuntu-latest']): Promise<Runner> {
  const issued = await h.call('GET', `/repos/${owner}/${repo}/runners/registration-token`, { auth });
  if (issued.status !== 200) throw new Error(`no registration token: ${issued.status}`);
  const registered = await json(h, 'runner.v1.RunnerService/Register', { name: `runner-${repo}`, token: issued.body.token, labels });
  if (registered.status !== 200) throw new Error(`registration failed: ${JSON.stringify(registered.body)}`);
  return { uuid: registered.body.runner.uuid, token: registered.body.runner.token };
}

/** The task FetchTask hands the runner (JSON field names), or null when nothing waits for it. */
export async function fetchTask(h: TestHearth, runner: Runner): Promise<any> {
  return (await json(h, 'runner.v1.RunnerService/FetchTask', {}, runner)).body.task ?? null;
}

/** Reports the task finished with `result` (RESULT_SUCCESS, RESULT_FAILURE, ...). */
export async function finishTask(h: TestHearth, runner: Runner, taskId: string, result = 'RESULT_SUCCESS'): Promise<void> {
  const answer = await json(h, 'runner.v1.RunnerService/UpdateTask', { state: { id: taskId, result } }, runner);
  if (answer.status !== 200) throw new Error(`UpdateTask failed: ${JSON.stringify(answer.body)}`);
}

export const runsOf = async (h: TestHearth, repo: RepoRow): Promise<{ workflow_path: string; status: string; event: string; is_scheduled: boolean; parse_error: string | null }[]> =>
  h.store.db.query('SELECT workflow_path, status, event, is_scheduled, parse_error FROM action_run WHERE repo_id = $1 ORDER BY id', [repo.id]);

/**
 * Checks answers against the served document's definitions, strictly for the actions definitions (no property
 * outside the documented ones; date-times and x-nullable properties may be null, as Go's pointers are).
 */
export async function definitionChecker(h: TestHearth): Promise<(definition: string, body: unknown) => string[]> {
  const doc = (await h.call('GET', '/swagger.v1.json')).body as { definitions: Record<string, Record<string, any>> };
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('int64', { type: 'number', validate: Number.isSafeInteger });
  ajv.addFormat('int32', { type: 'number', validate: Number.isSafeInteger });
  ajv.addFormat('email', true);
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const definitions = Object.fromEntries(Object.entries(doc.definitions).map(([name, schema]) => {
    if (!name.startsWith('Action') || !schema.properties) return [name, schema];
    const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, any>).map(([key, value]) =>
      [key, value['x-nullable'] ? { anyOf: [value, { type: 'null' }] } : value]));
    return [name, { ...schema, properties, required: Object.keys(properties), additionalProperties: false }];
  }));
  ajv.addSchema({ $id: 'doc', definitions });
  return (definition, body) => {
    const validate = ajv.getSchema(`doc#/definitions/${definition}`);
    if (!validate) return [`no definition ${definition}`];
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${definition}${e.instancePath} ${e.message}`);
  };
}
