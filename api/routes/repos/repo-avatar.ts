import { Router } from 'express';
import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { decodeBase64Strict } from '../../../db/encoding.js';
import { badRequest } from '../../../db/errors.js';
import { deleteRepoAvatar, readRepoAvatar, setRepoAvatar } from '../../../db/models/repos/repo-avatars.js';
import { noContent, route } from '../../http/route.js';
import type { Deps } from '../../deps.js';

const avatarBody = z.object({ image: z.string() });

/** The uploaded avatar of a repository or user: empty or malformed base64 is a 400. */
export function decodeAvatar(text: string): Buffer {
  const image = decodeBase64Strict(text);
  if (!image?.length) throw badRequest('image is not valid base64');
  return image;
}

export const repoAvatarRoutes = [
  route({
    method: 'post', path: '/repos/{owner}/{repo}/avatar', operationId: 'repoUpdateAvatar', summary: 'Update avatar', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, body: avatarBody,
    responses: { 204: 'empty', 400: 'error', 413: 'error', 422: 'validationError' },
    handle: async ({ deps, repo, body }) => {
      const image = decodeAvatar(body.image);
      await inTx(deps, (tx) => setRepoAvatar(tx, deps.config, repo.repo, image));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/avatar', operationId: 'repoDeleteAvatar', summary: 'Delete avatar', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, responses: { 204: 'empty' },
    handle: async ({ deps, repo }) => {
      await inTx(deps, (tx) => deleteRepoAvatar(tx, deps.config, repo.repo));
      return noContent();
    },
  }),
];

/** GET /repo-avatars/{hash}: the image files that repositories' avatar_url point at. */
export function repoAvatarFiles(deps: Deps): Router {
  const router = Router();
  router.get('/repo-avatars/:hash', async (req, res, next) => {
    try {
      const avatar = await readRepoAvatar(deps.config, req.params.hash);
      if (!avatar) {
        res.status(404).type('text/plain').send('Not found');
        return;
      }
      res.set({ 'Content-Type': avatar.type, 'Cache-Control': 'public, max-age=86400, immutable' }).send(avatar.bytes);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
