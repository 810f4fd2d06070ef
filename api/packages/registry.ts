import { Router, type NextFunction, type Request, type Response } from 'express';
import { HttpError, notFound, unauthorized } from '../../db/errors.js';
import { packageAccessOf } from '../../db/models/access.js';
import { accessModes, type AccessMode } from '../../db/models/repos/repo-row.js';
import { findUserByName } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { scopeAllows } from '../../db/scopes.js';
import { authenticate } from '../auth/authenticate.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { drainRefused } from './body.js';

/** What a registry handler works with: the caller, the owner the path names and the caller's mode on its packages. */
export interface RegistryContext {
  deps: Deps;
  caller: Caller;
  owner: UserRow;
  mode: AccessMode;
  /** The caller's user; never null in a handler that needs write access. */
  doer: UserRow | null;
  req: Request;
  res: Response;
  /** `{rootUrl}api/packages/{owner}/{type}`, for addresses a client follows. */
  base: string;
}

/** How an ecosystem's client reads an error: each registry answers in its own shape. */
export type ErrorWriter = (res: Response, status: number, message: string) => void;

export const plainTextError: ErrorWriter = (res, status, message) => {
  res.status(status).type('text/plain').send(message);
};

export const packageRealm = 'Basic realm="Hearth Package API"';

type Work = (ctx: RegistryContext) => Promise<void>;

/**
 * The routes of one registry under `/api/packages/{owner}/{type}`. Every request resolves its caller with the
 * API's authentication, loads the owner (404 when missing), then checks the token scope (read:package or
 * write:package) and the caller's mode on the owner's packages, answering 401 with a Basic challenge so clients
 * send credentials, as Gitea's reqPackageAccess does.
 */
export class Registry {
  readonly router = Router({ mergeParams: true });
  private readonly resolveCaller;

  constructor(readonly deps: Deps, readonly type: string, readonly writeError: ErrorWriter, readonly challenge = packageRealm) {
    this.resolveCaller = authenticate(deps);
  }

  get(path: string, access: 'read' | 'write', work: Work): void {
    this.router.get(path, this.handle(access, work));
  }

  head(path: string, access: 'read' | 'write', work: Work): void {
    this.router.head(path, this.handle(access, work));
  }

  put(path: string, access: 'read' | 'write', work: Work): void {
    this.router.put(path, this.handle(access, work));
  }

  post(path: string, access: 'read' | 'write', work: Work): void {
    this.router.post(path, this.handle(access, work));
  }

  delete(path: string, access: 'read' | 'write', work: Work): void {
    this.router.delete(path, this.handle(access, work));
  }

  handle(access: 'read' | 'write', work: Work) {
    return (req: Request, res: Response): void => {
      const then = (error?: unknown): void => {
        if (error) this.fail(res, error);
        else this.run(access, work, req, res).catch((failure: unknown) => this.fail(res, failure));
      };
      void this.resolveCaller(req, res, then as NextFunction);
    };
  }

  private async run(access: 'read' | 'write', work: Work, req: Request, res: Response): Promise<void> {
    const { deps } = this;
    const caller = res.locals.caller as Caller;
    const owner = await findUserByName(deps.db, String(req.params.owner));
    if (!owner) throw notFound(`owner ${req.params.owner} does not exist`, 'owner does not exist');
    const mode = await packageAccessOf(deps.db, caller.user, owner);
    if (!scopeAllows(caller.scope, `${access}:package`)) {
      throw unauthorized('user should have specific permission or be a site admin');
    }
    if (mode < (access === 'read' ? accessModes.read : accessModes.write)) {
      throw unauthorized('user should have specific permission or be a site admin');
    }
    const base = `${deps.config.rootUrl}api/packages/${owner.name}/${this.type}`;
    await work({ deps, caller, owner, mode, doer: caller.user, req, res, base });
  }

  fail(res: Response, error: unknown): void {
    if (res.headersSent) {
      this.deps.log.error({ err: error }, 'package request failed after its answer began');
      res.destroy();
      return;
    }
    const status = error instanceof HttpError ? error.status : 500;
    if (status === 500) this.deps.log.error({ err: error }, 'package request failed');
    if (status === 401) res.setHeader('WWW-Authenticate', this.challenge);
    this.writeError(res, status, status === 500 ? 'internal server error' : (error as Error).message);
    // after the answer, so a client waiting for `100 Continue` is not asked for a body now refused
    drainRefused(res.req);
  }
}

/** The doer of a write: access was checked, so a user is there. */
export function writer(ctx: RegistryContext): UserRow {
  if (!ctx.doer) throw unauthorized('user should have specific permission or be a site admin');
  return ctx.doer;
}
