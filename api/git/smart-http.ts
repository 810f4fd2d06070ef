import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { inTx } from '../../db/data-source.js';
import { forbidden, HttpError, notFound, unauthorized, unsupportedMediaType } from '../../db/errors.js';
import { gitEnv, runGit } from '../../db/git/run.js';
import { accessModeOf, wikiModeOf } from '../../db/models/access.js';
import { judgePush, pushedPathsRefusal, type RefUpdate } from '../../db/models/code/branch-protection.js';
import { recordRefUpdates } from '../../db/models/code/ref-updates.js';
import { accessModes, type AccessMode, type RepoRow } from '../../db/models/repos/repo-row.js';
import { findRedirect, findRepo } from '../../db/models/repos/repos.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { scopeAllows } from '../../db/scopes.js';
import { authenticate } from '../auth/authenticate.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { doerOf } from '../context/user.js';
import { encodePkt, flushPkt } from './pkt-line.js';
import { answerPathChecks, fastForwardOnlyVariable, installHooks } from './pre-receive-hook.js';
import { readCommandList, refusalResponse, ReportReader, sidebandSize, type PushRequest } from './push-commands.js';
import { isLookupName } from '../http/path-params.js';

type Service = 'upload-pack' | 'receive-pack';

interface Target {
  repo: RepoRow;
  dir: string;
  user: UserRow | null;
  mode: AccessMode;
  /** The repository's wiki (`{repo}.wiki.git`) rather than the repository. */
  wiki: boolean;
}

/** The most a push's command list may weigh before its pack (about 50,000 ref updates). */
const commandListLimit = 8 * 1024 * 1024;

/**
 * Git over smart HTTP at /{owner}/{repo}.git (the suffix is optional): the git CLI in stateless-RPC mode does
 * the protocol work, with request and response bodies streamed through. Hearth authenticates (basic with a
 * password or a token, as on the API), checks access, and for pushes applies branch protection before git
 * accepts anything; an accepted push enqueues one branch-sync job before the client hears the end of it.
 */
export function gitSmartHttp(deps: Deps): Router {
  const router = Router();
  const resolveCaller = authenticate(deps, 'git');
  let hooks: Promise<string> | null = null;
  const hooksDir = (): Promise<string> => {
    hooks ??= installHooks(path.join(deps.config.dataDir, 'hooks')).catch((error: unknown) => {
      hooks = null;
      throw error;
    });
    return hooks;
  };

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
    const target = await resolveTarget(deps, req, res, 'upload-pack');
    const body = requestBody(req, 'upload-pack');
    res.status(200).set(noCache).type('application/x-git-upload-pack-result');
    await runStreaming(deps, { args: ['upload-pack', '--stateless-rpc', target.dir], dir: target.dir, env: protocolEnv(req) }, body, res);
    res.end();
  }));

  router.post('/:owner/:repo/git-receive-pack', handle(async (req, res) => {
    const target = await resolveTarget(deps, req, res, 'receive-pack');
    const body = requestBody(req, 'receive-pack');
    if (target.wiki) {
      // A wiki has no branch records, protection or branch sync: git takes the push as it comes.
      res.status(200).set(noCache).type('application/x-git-receive-pack-result');
      await runStreaming(deps, { args: ['receive-pack', '--stateless-rpc', target.dir], dir: target.dir, env: {} }, body, res);
      res.end();
      return;
    }
    const { head, request } = await readCommandList(body, commandListLimit);
    const pusher = doerOf(res.locals.caller as Caller);
    const verdict = await judgePush(deps.db, target.repo, pusher, target.mode, request.commands);
    // the refusals the pushed paths may lift are decided by the hook's question instead
    for (const ref of verdict.fileChecks.keys()) verdict.refusals.delete(ref);
    res.status(200).set(noCache).type('application/x-git-receive-pack-result');
    if (verdict.refusals.size > 0) {
      body.resume();
      await finished(body);
      res.end(refusalResponse(request, verdict.refusals));
      return;
    }
    const report = new ReportReader(sidebandSize(request.capabilities) > 0);
    const pathChecks = verdict.fileChecks.size > 0
      ? await answerPathChecks([...verdict.fileChecks.keys()], (ref, paths) => pushedPathsRefusal(verdict.fileChecks.get(ref)!, paths))
      : null;
    try {
      await runStreaming(deps, {
        args: ['-c', `core.hooksPath=${await hooksDir()}`, 'receive-pack', '--stateless-rpc', target.dir],
        dir: target.dir,
        env: { [fastForwardOnlyVariable]: verdict.fastForwardOnly.join(' '), ...pathChecks?.env },
        prefix: head,
        onOutput: (chunk) => report.feed(chunk),
      }, body, res);
    } finally {
      await pathChecks?.stop();
    }
    const accepted = report.reported
      ? request.commands.filter((c) => report.updated.has(c.ref))
      : await commandsNowOnDisk(target.dir, request);
    if (accepted.length > 0) {
      // The client hears the end of its push only once the sync is queued, so what it pushed is never lost to the database.
      await inTx(deps, (tx) => recordRefUpdates(tx, deps.git.open(target.repo), target.repo, pusher, accepted)).catch((error: unknown) => {
        deps.log.error({ err: error, repoId: target.repo.id }, 'an accepted push could not be queued for branch sync');
      });
    }
    res.end();
  }));

  return router;
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

/**
 * Who may do what: a token must carry read:repository to fetch and write:repository to push; a repository the
 * caller cannot read is a 404 (a 401 asking for credentials when the caller is anonymous, so git retries with
 * them); pushing needs write access to a repository that is neither archived nor a mirror.
 */
async function resolveTarget(deps: Deps, req: Request, res: Response, service: Service): Promise<Target> {
  const caller = res.locals.caller as Caller;
  const scope = service === 'receive-pack' ? 'write:repository' : 'read:repository';
  if ((caller.method === 'token' || caller.method === 'query') && !scopeAllows(caller.scope, scope)) {
    throw forbidden(`token does not have at least one of required scope(s): [${scope}]`);
  }
  const owner = String(req.params.owner);
  const asked = String(req.params.repo).replace(/\.git$/i, '');
  // Repository names never end in `.wiki`: such a name is the wiki of the repository before it.
  const wiki = /\.wiki$/i.test(asked);
  const name = wiki ? asked.slice(0, -'.wiki'.length) : asked;
  const repo = isLookupName(owner) && isLookupName(name) ? ((await findRepo(deps.db, owner, name)) ?? (await findRedirect(deps.db, owner, name))) : null;
  const repoMode = repo ? await accessModeOf(deps.db, caller.user, repo, wiki ? undefined : 'repo.code') : accessModes.none;
  const mode = repo && wiki ? await wikiModeOf(deps.db, caller.user, repo, repoMode) : repoMode;
  if (!repo || mode < accessModes.read) {
    if (!caller.user) throw unauthorized('authentication required');
    throw notFound();
  }
  if (service === 'receive-pack') {
    if (!caller.user) throw unauthorized('authentication required');
    if (mode < accessModes.write) throw forbidden('User permission denied for writing.');
    if (repo.is_archived) throw forbidden('repo is archived');
    if (repo.is_mirror) throw forbidden('mirror repository is read-only');
    if (repo.status !== 0) throw forbidden('repository is being migrated');
  }
  if (wiki && service === 'receive-pack') await createWikiOnFirstPush(deps, repo);
  const dir = wiki ? deps.git.openWiki(repo).dir : deps.git.pathOf(repo.owner_name, repo.name);
  if (!existsSync(dir)) throw notFound();
  return { repo, dir, user: caller.user, mode, wiki };
}

/** A wiki that was never written is created by the first push to it, as by its first page. */
async function createWikiOnFirstPush(deps: Deps, repo: RepoRow): Promise<void> {
  try {
    await deps.git.initWiki(repo);
  } catch (error) {
    // two first pushes at once: the other one created it
    if (!deps.git.wikiExists(repo)) throw error;
  }
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

/** One git process of a request: its arguments, environment, and bytes already read from the body. */
interface GitCall {
  args: string[];
  dir: string;
  env: Record<string, string>;
  prefix?: Buffer;
  onOutput?: (chunk: Buffer) => void;
}

/**
 * Runs git with the prefix and then the rest of `body` on its stdin and its stdout streamed into the response
 * (left open for the caller to end). Resolves when git exits; a client that goes away stops git.
 */
function runStreaming(deps: Deps, call: GitCall, body: Readable, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', call.args, { cwd: call.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...call.env } });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => undefined);
    body.on('error', () => child.kill());
    res.on('close', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    if (call.onOutput) child.stdout.on('data', call.onOutput);
    child.stdout.pipe(res, { end: false });
    if (call.prefix) child.stdin.write(call.prefix);
    body.pipe(child.stdin);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        deps.log.warn({ args: call.args, code, signal, stderr: Buffer.concat(stderr).toString('utf8').slice(0, 2000) }, 'git exited with an error');
      }
      resolve();
    });
  });
}

/** Without a report-status from git, the commands whose ref now holds the new value are the accepted ones. */
async function commandsNowOnDisk(dir: string, request: PushRequest): Promise<RefUpdate[]> {
  if (request.commands.length === 0) return [];
  const listed = await runGit(['for-each-ref', '--format=%(refname) %(objectname)', '--', ...request.commands.map((c) => c.ref)], { cwd: dir });
  const values = new Map(listed.stdout.toString('utf8').split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
  return request.commands.filter((c) => (values.get(c.ref) ?? '0'.repeat(c.newSha.length)) === c.newSha);
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
