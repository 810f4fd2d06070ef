import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { forbidden, HttpError, unsupportedMediaType } from '../../db/errors.js';
import { runGit } from '../../db/git/run.js';
import { scopeAllows } from '../../db/scopes.js';
import { authenticate } from '../auth/authenticate.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { doerOf } from '../context/user.js';
import { recordGitTransfer, type GitService } from '../../db/process/metrics.js';
import { encodePkt, flushPkt } from './pkt-line.js';
import { hooksInstaller, receivePush, runStreaming } from './receive.js';
import { resolveGitTarget, type GitTarget } from './target.js';

type Service = 'upload-pack' | 'receive-pack';

/**
 * Git over smart HTTP at /{owner}/{repo}.git (the suffix is optional): the git CLI in stateless-RPC mode does
 * the protocol work, with request and response bodies streamed through. Hearth authenticates (basic with a
 * password or a token, as on the API), checks access, and for pushes applies branch protection before git
 * accepts anything; an accepted push enqueues one branch-sync job before the client hears the end of it.
 */
export function gitSmartHttp(deps: Deps): Router {
  const router = Router();
  const resolveCaller = authenticate(deps, 'git');
  const hooksDir = hooksInstaller(deps);

  // Every git request resolves its caller first, and answers failures the way git clients read them.
  const handle = (work: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response): void => {
    const then = (error?: unknown): void => {
      if (error) fail(deps, res, error);
      else work(req, res).catch((failure: unknown) => fail(deps, res, failure));
    };
    void resolveCaller(req, res, then as NextFunction);
  };

  router.get('/:owner/:repo/info/refs', handle(async (req, res) => {
    const service = serviceOf(req.query.service);
    const target = await resolveTarget(deps, req, res, service);
    const env = protocolEnv(req);
    const advertised = await runGit([service, '--stateless-rpc', '--advertise-refs', target.dir], { cwd: target.dir, env });
    if (advertised.code !== 0) throw new Error(`git ${service} --advertise-refs failed: ${advertised.stderr.trim()}`);
    // Protocol v2 starts with its own capability advertisement; v0 with the service announcement.
    const v2 = service === 'upload-pack' && /(^|:)version=2($|:)/.test(env.GIT_PROTOCOL ?? '');
    res.status(200).set(noCache).type(`application/x-git-${service}-advertisement`);
    res.end(v2 ? advertised.stdout : Buffer.concat([encodePkt(`# service=git-${service}\n`), flushPkt, advertised.stdout]));
  }));

  router.post('/:owner/:repo/git-upload-pack', handle(async (req, res) => {
    measureTransfer(req, res, 'upload-pack');
    const target = await resolveTarget(deps, req, res, 'upload-pack');
    const body = requestBody(req, 'upload-pack');
    res.status(200).set(noCache).type('application/x-git-upload-pack-result');
    await runStreaming(deps, { args: ['upload-pack', '--stateless-rpc', target.dir], dir: target.dir, env: protocolEnv(req) }, body, res);
    res.end();
  }));

  router.post('/:owner/:repo/git-receive-pack', handle(async (req, res) => {
    measureTransfer(req, res, 'receive-pack');
    const target = await resolveTarget(deps, req, res, 'receive-pack');
    const body = requestBody(req, 'receive-pack');
    res.status(200).set(noCache).type('application/x-git-receive-pack-result');
    await receivePush(deps, target, body, res, hooksDir);
    res.end();
  }));

  return router;
}

/**
 * Reports the transfer when its answer is sent: its duration, and the bytes its connection carried both ways from the
 * handler's start (an HTTP/1.1 connection carries one request at a time: the request body, less what the first read
 * with the headers took, and the whole answer).
 */
function measureTransfer(req: Request, res: Response, service: GitService): void {
  const started = performance.now();
  const socket = req.socket;
  const before = socket.bytesRead + socket.bytesWritten;
  res.once('finish', () => {
    if (res.statusCode >= 400) return;
    recordGitTransfer({ service, protocol: 'http', bytes: socket.bytesRead + socket.bytesWritten - before, ms: performance.now() - started });
  });
}

const noCache = {
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  Pragma: 'no-cache',
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
};

function serviceOf(value: unknown): Service {
  if (value === 'git-upload-pack') return 'upload-pack';
  if (value === 'git-receive-pack') return 'receive-pack';
  throw forbidden('only the smart HTTP protocol is served: ask for service=git-upload-pack or service=git-receive-pack');
}

/** The client's Git-Protocol header (e.g. `version=2`), handed to git as GIT_PROTOCOL when it is well formed. */
function protocolEnv(req: Request): Record<string, string> {
  const value = req.get('git-protocol');
  return value && /^[\w.=:,-]{1,256}$/.test(value) ? { GIT_PROTOCOL: value } : {};
}

/** A token must carry read:repository to fetch and write:repository to push; the rest is resolveGitTarget's. */
async function resolveTarget(deps: Deps, req: Request, res: Response, service: Service): Promise<GitTarget> {
  const caller = res.locals.caller as Caller;
  const scope = service === 'receive-pack' ? 'write:repository' : 'read:repository';
  if ((caller.method === 'token' || caller.method === 'query') && !scopeAllows(caller.scope, scope)) {
    throw forbidden(`token does not have at least one of required scope(s): [${scope}]`);
  }
  return resolveGitTarget(deps, { user: caller.user ? doerOf(caller) : null }, String(req.params.owner), String(req.params.repo), service);
}

/** The request body, unzipped when the client compressed it (git does for large fetch negotiations). */
function requestBody(req: Request, service: Service): Readable {
  if (req.get('content-type') !== `application/x-git-${service}-request`) {
    throw unsupportedMediaType(`expected Content-Type application/x-git-${service}-request`);
  }
  const encoding = (req.get('content-encoding') ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    req.on('error', (error) => gunzip.destroy(error));
    return req.pipe(gunzip);
  }
  if (encoding && encoding !== 'identity') throw unsupportedMediaType(`unsupported Content-Encoding ${encoding}`);
  return req;
}

/** Errors as git clients read them: plain text, and a Basic challenge with every 401 so git asks for credentials. */
function fail(deps: Deps, res: Response, error: unknown): void {
  if (res.headersSent) {
    deps.log.error({ err: error }, 'git request failed after its answer began');
    res.destroy();
    return;
  }
  const status = error instanceof HttpError ? error.status : 500;
  if (status === 500) deps.log.error({ err: error }, 'git request failed');
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="Hearth"');
  const message = status === 500 ? 'internal server error' : status === 404 ? 'Repository not found' : (error as Error).message;
  res.status(status).type('text/plain').send(`${message}\n`);
}
