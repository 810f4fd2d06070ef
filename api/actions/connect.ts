import { gunzipSync } from 'node:zlib';
import express, { type Request, type Response, type Router } from 'express';
import { inTx } from '../../db/data-source.js';
import { findRegistrationToken } from '../../db/models/actions/registration-tokens.js';
import {
  authenticateRunner, declareRunner, invalidLabel, registerRunner, touchRunner, type RunnerRow,
} from '../../db/models/actions/runners.js';
import {
  appendTaskLog, fetchTask, resultOf, taskPayloadParts, tasksVersion, TaskError, updateTask, type StepUpdate,
} from '../../db/models/actions/tasks.js';
import type { Deps } from '../deps.js';
import { decodeBinary, decodeJson, encodeBinary, encodeJson, ProtoInputError, type Plain } from './proto.js';

/** Connect's error codes with the HTTP statuses the protocol gives them. */
const connectStatuses = {
  invalid_argument: 400, unauthenticated: 401, permission_denied: 403, not_found: 404, already_exists: 409,
  failed_precondition: 400, unimplemented: 501, internal: 500,
} as const;
type ConnectCode = keyof typeof connectStatuses;

class ConnectError extends Error {
  constructor(readonly code: ConnectCode, message: string) {
    super(message);
  }
}

interface Call {
  message: Plain;
  runner: RunnerRow | null;
  deps: Deps;
}

interface Procedure {
  input: string;
  output: string;
  /** Register and Ping need no runner; everything else needs `x-runner-uuid` and `x-runner-token`. */
  anonymous?: boolean;
  handle(call: Call): Promise<Plain>;
}

const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

function runnerMessage(runner: RunnerRow, token = ''): Plain {
  return {
    id: runner.id, uuid: runner.uuid, token, name: runner.name, status: 'RUNNER_STATUS_IDLE', version: runner.version,
    labels: runner.labels, agent_labels: [], custom_labels: [], ephemeral: runner.ephemeral,
  };
}

function checkLabels(labels: string[]): void {
  const bad = invalidLabel(labels);
  if (bad !== null) throw new ConnectError('invalid_argument', `invalid label: ${bad}`);
}

/** The runner service as Gitea's routers/api/actions/runner serves it, and the ping service. */
const procedures: Record<string, Procedure> = {
  'ping.v1.PingService/Ping': {
    input: 'ping.v1.PingRequest', output: 'ping.v1.PingResponse', anonymous: true,
    handle: async ({ message }) => ({ data: `Hello, ${String(message.data)}!` }),
  },
  'runner.v1.RunnerService/Register': {
    input: 'runner.v1.RegisterRequest', output: 'runner.v1.RegisterResponse', anonymous: true,
    handle: async ({ message, deps }) => {
      const token = String(message.token ?? '');
      const name = String(message.name ?? '');
      const found = await findRegistrationToken(deps.db, token);
      if (!found) throw new ConnectError('unauthenticated', 'runner registration token not found');
      if (!found.isActive) throw new ConnectError('unauthenticated', 'runner registration token has been invalidated, please use the latest one');
      if (!name.trim() || name.length > 255) throw new ConnectError('invalid_argument', 'a runner needs a name of at most 255 characters');
      const labels = [...new Set([...asStrings(message.labels), ...asStrings(message.agent_labels), ...asStrings(message.custom_labels)])];
      checkLabels(labels);
      const { row, token: runnerToken } = await inTx(deps, (tx) => registerRunner(tx, {
        name, version: String(message.version ?? ''), labels, ephemeral: Boolean(message.ephemeral), ownerId: found.ownerId, repoId: found.repoId,
      }));
      return { runner: runnerMessage(row, runnerToken) };
    },
  },
  'runner.v1.RunnerService/Declare': {
    input: 'runner.v1.DeclareRequest', output: 'runner.v1.DeclareResponse',
    handle: async ({ message, runner, deps }) => {
      const labels = asStrings(message.labels);
      checkLabels(labels);
      const row = await inTx(deps, (tx) => declareRunner(tx, runner!, String(message.version ?? ''), labels));
      return { runner: runnerMessage(row) };
    },
  },
  'runner.v1.RunnerService/FetchTask': {
    input: 'runner.v1.FetchTaskRequest', output: 'runner.v1.FetchTaskResponse',
    handle: async ({ runner, deps }) => {
      const version = await tasksVersion(deps.db);
      if (!deps.config.actions.enabled) return { task: null, tasks_version: version };
      const task = await inTx(deps, async (tx) => {
        const fetched = await fetchTask(tx, runner!);
        if (!fetched) return null;
        const parts = await taskPayloadParts(tx, fetched, deps.config.security.secretKey, deps.config.rootUrl);
        return {
          id: fetched.task.id, workflow_payload: Buffer.from(fetched.job.payload), context: parts.context, secrets: parts.secrets,
          machine: '', needs: parts.needs, vars: parts.vars,
        };
      });
      return { task, tasks_version: version };
    },
  },
  'runner.v1.RunnerService/UpdateTask': {
    input: 'runner.v1.UpdateTaskRequest', output: 'runner.v1.UpdateTaskResponse',
    handle: async ({ message, runner, deps }) => {
      const state = message.state as Plain | null;
      if (!state) throw new ConnectError('invalid_argument', 'state is required');
      const outputs = Object.fromEntries(Object.entries((message.outputs as Record<string, unknown>) ?? {}).map(([k, v]) => [k, String(v)]));
      const { task, sentOutputs } = await inTx(deps, (tx) => updateTask(tx, runner!, {
        id: Number(state.id), result: String(state.result), started_at: (state.started_at as Date | null) ?? null,
        stopped_at: (state.stopped_at as Date | null) ?? null, steps: (state.steps as StepUpdate[] | undefined) ?? [],
      }, outputs));
      return { state: { id: task.id, result: resultOf(task.status), started_at: null, stopped_at: null, steps: [] }, sent_outputs: sentOutputs };
    },
  },
  'runner.v1.RunnerService/UpdateLog': {
    input: 'runner.v1.UpdateLogRequest', output: 'runner.v1.UpdateLogResponse',
    handle: async ({ message, runner, deps }) => {
      const rows = ((message.rows as Plain[] | undefined) ?? []).map((row) => ({ time: (row.time as Date | null) ?? null, content: String(row.content ?? '') }));
      const index = Number(message.index);
      if (!Number.isSafeInteger(index) || index < 0) throw new ConnectError('invalid_argument', 'index must be a non-negative integer');
      const ack = await inTx(deps, (tx) => appendTaskLog(tx, runner!, Number(message.task_id), index, rows, Boolean(message.no_more)));
      return { ack_index: ack };
    },
  },
};

function sendError(res: Response, error: ConnectError): void {
  res.status(connectStatuses[error.code]).type('application/json').send(JSON.stringify({ code: error.code, message: error.message }));
}

type Codec = 'json' | 'proto';

function codecOf(req: Request): Codec | null {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/proto' || type === 'application/protobuf') return 'proto';
  return null;
}

/**
 * The runner-facing API under /api/actions (outside /api/v1), in the Connect protocol's unary form: POST with a
 * JSON or binary protobuf body, the answer in the same encoding, errors as Connect's JSON error body.
 */
export function actionsRunnerApi(deps: Deps): Router {
  const router = express.Router();
  router.use(express.raw({ type: () => true, limit: '32mb' }));
  router.post('/*procedure', async (req, res) => {
    const name = ([] as string[]).concat((req.params as Record<string, string | string[]>).procedure).join('/');
    const procedure = Object.hasOwn(procedures, name) ? procedures[name] : undefined;
    if (!procedure) return sendError(res, new ConnectError('not_found', `no procedure ${name}`));
    const codec = codecOf(req);
    if (!codec) {
      res.status(415).set('Accept-Post', 'application/json, application/proto').end();
      return;
    }
    try {
      let body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
      if (encoding === 'gzip') body = gunzipSync(body, { maxOutputLength: 64 * 1024 * 1024 });
      else if (encoding !== 'identity') throw new ConnectError('unimplemented', `content encoding ${encoding} is not supported`);
      const message = codec === 'json' ? decodeJson(procedure.input, body.toString('utf8')) : decodeBinary(procedure.input, body);
      let runner: RunnerRow | null = null;
      if (!procedure.anonymous) {
        runner = await authenticateRunner(deps.db, String(req.headers['x-runner-uuid'] ?? ''), String(req.headers['x-runner-token'] ?? ''));
        if (!runner) throw new ConnectError('unauthenticated', 'unregistered runner');
        await touchRunner(deps.db, runner.id, false);
      }
      const answer = await procedure.handle({ message, runner, deps });
      if (codec === 'json') res.status(200).type('application/json').send(encodeJson(procedure.output, answer));
      else res.status(200).type('application/proto').send(Buffer.from(encodeBinary(procedure.output, answer)));
    } catch (error) {
      if (error instanceof ConnectError) return sendError(res, error);
      if (error instanceof ProtoInputError) return sendError(res, new ConnectError('invalid_argument', error.message));
      if (error instanceof TaskError) return sendError(res, new ConnectError(error.code, error.message));
      if (error instanceof Error && 'code' in error && (error as { code: unknown }).code === 'Z_DATA_ERROR') {
        return sendError(res, new ConnectError('invalid_argument', 'the body is not valid gzip'));
      }
      deps.log.error({ err: error, procedure: name }, 'runner API failed');
      return sendError(res, new ConnectError('internal', 'internal error'));
    }
  });
  router.all('/*procedure', (_req, res) => {
    res.status(405).set('Allow', 'POST').end();
  });
  return router;
}
