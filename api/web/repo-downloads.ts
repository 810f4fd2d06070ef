import { Router, type NextFunction, type Request, type Response } from 'express';
import { notFound } from '../../db/errors.js';
import { findReleaseAssetByName } from '../../db/models/attachment-downloads.js';
import type { UnitKey } from '../../db/models/orgs/teams.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import { authenticate } from '../auth/authenticate.js';
import type { Caller } from '../auth/caller.js';
import type { LoadedRepo } from '../context/repo.js';
import type { Deps } from '../deps.js';
import { sendReply } from '../http/mount.js';
import type { Reply } from '../http/route.js';
import { archiveReply, blobByIdReply, rawFileReply, rawTarget, typedRawTarget, type RefKind } from '../routes/code/file-downloads.js';
import { boolOf, openGitView, type GitView } from '../routes/code/git-data.js';
import { pullDiffReply } from '../routes/pulls/pull-changes.js';
import { serveAttachment } from './attachments.js';
import { loadWebRepo } from './web-repo.js';

type Handler = (repo: LoadedRepo, req: Request, res: Response) => Promise<Reply | null>;
type FileRead = (view: GitView, repo: LoadedRepo, params: Record<string, string>) => Promise<Reply>;

/** Path parameters as strings: Express hands a `*path` over as its segments. */
const paramsOf = (req: Request): Record<string, string> =>
  Object.fromEntries(Object.entries(req.params as Record<string, string | string[]>).map(([key, value]) => [key, Array.isArray(value) ? value.join('/') : value]));

/**
 * The download routes of a repository's web pages that API answers link to (Gitea's web.go): `download_url` of
 * contents (`/raw/{branch|tag|commit}/{ref}/{path}`, and `/raw/blob/{sha}` and the legacy `/raw/{path}`), the same under
 * `/media/` (Hearth has no LFS, so media is the blob), archives (`zipball_url`, `tarball_url`), release assets by tag
 * and name, and a pull request's diff and patch (`diff_url`, `patch_url`). Same callers and checks as the API: basic auth, tokens; what the caller may not read is a 404.
 */
export function repoDownloads(deps: Deps): Router {
  const router = Router();
  const resolveCaller = authenticate(deps);
  const serve = (unit: UnitKey, handler: Handler) => [
    resolveCaller,
    async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      try {
        const params = paramsOf(req);
        if (Object.values(params).some((value) => value.includes('\u0000'))) throw notFound();
        const { owner, repo: name } = params;
        const loaded = await loadWebRepo(deps, res.locals.caller as Caller, owner, name, unit);
        const reply = await handler(loaded, req, res);
        if (reply) await sendReply(res, reply);
      } catch (error) {
        if (res.headersSent) res.destroy();
        else next(error);
      }
    },
  ];
  /** The repository's files (Gitea's MustBeNotEmpty: a repository without a branch has none). */
  const files = (read: FileRead): Handler => async (repo, req) => {
    const view = openGitView(deps, repo);
    if (!(await view.reader.hasBranches())) throw notFound();
    return read(view, repo, paramsOf(req));
  };

  for (const prefix of ['raw', 'media']) {
    for (const kind of ['branch', 'tag', 'commit'] satisfies RefKind[]) {
      router.get(`/:owner/:repo/${prefix}/${kind}/*path`, serve('repo.code', files(async (view, _repo, { path }) =>
        rawFileReply(view, await typedRawTarget(view.reader, kind, path), path))));
    }
    router.get(`/:owner/:repo/${prefix}/blob/:sha`, serve('repo.code', files((view, _repo, { sha }) => blobByIdReply(view, sha))));
    // Gitea keeps the untyped `/raw/{path}` for links made before typed refs.
    router.get(`/:owner/:repo/${prefix}/*path`, serve('repo.code', files(async (view, repo, { path }) =>
      rawFileReply(view, await rawTarget(view.reader, repo.repo.default_branch, path, undefined), path))));
  }
  router.get('/:owner/:repo/archive/*path', serve('repo.code', files((view, repo, { path }) => archiveReply(view, repo.repo.name, path))));
  // Gitea's web DownloadPullDiff and DownloadPullPatch
  router.get('/:owner/:repo/pulls/:index.:diffType', serve('repo.pulls', async (repo, req) => {
    const { index, diffType } = paramsOf(req);
    if (!/^[1-9]\d{0,17}$/.test(index)) throw notFound();
    const binary = typeof req.query.binary === 'string' ? req.query.binary : undefined;
    return pullDiffReply(deps, repo, Number(index), diffType, boolOf(binary));
  }));
  router.get('/:owner/:repo/releases/download/:tag/:name', serve('repo.releases', async (repo, req, res) => {
    const { tag, name } = paramsOf(req);
    const asset = await findReleaseAssetByName(deps.db, repo.repo, tag, name, repo.mode >= accessModes.write);
    if (!asset) throw notFound();
    await serveAttachment(deps, asset, req, res);
    return null;
  }));
  return router;
}
