import { Router } from 'express';
import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { deleteAvatar } from '../../../db/models/orgs/orgs.js';
import { readAvatarImage, setUserAvatar } from '../../../db/models/users/user-avatars.js';
import { noContent, route } from '../../http/route.js';
import type { Deps } from '../../deps.js';
import { decodeAvatar } from '../repos/repo-avatar.js';

const avatarBody = z.object({ image: z.string() });

export const userAvatarRoutes = [
  route({
    method: 'post', path: '/user/avatar', operationId: 'userUpdateAvatar', summary: 'Update Avatar', tag: 'user',
    scope: 'write:user', signedIn: true, body: avatarBody, responses: { 204: 'empty', 400: 'error', 413: 'error', 422: 'validationError' },
    handle: async ({ deps, doer, body }) => {
      const image = decodeAvatar(body.image);
      await inTx(deps, (tx) => setUserAvatar(tx, deps, doer, image));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/user/avatar', operationId: 'userDeleteAvatar', summary: 'Delete Avatar', tag: 'user',
    scope: 'write:user', signedIn: true, responses: { 204: 'empty' },
    handle: async ({ deps, doer }) => {
      await inTx(deps, (tx) => deleteAvatar(tx, deps, doer));
      return noContent();
    },
  }),
];

/** GET /avatars/{name}: the images users' and organizations' avatar_url point at (see renderUser's avatarUrl). */
export function userAvatarFiles(deps: Deps): Router {
  const router = Router();
  router.get('/avatars/:name', async (req, res, next) => {
    try {
      const avatar = await readAvatarImage(deps.blobs, req.params.name);
      if (!avatar) {
        res.status(404).type('text/plain').send('Not found');
        return;
      }
      res.set({ 'Content-Type': avatar.type, 'Cache-Control': 'public, max-age=86400' }).send(avatar.bytes);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
