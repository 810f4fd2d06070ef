import { route, type Reply } from '../../http/route.js';

/**
 * Hearth signs no commits, so it has no signing key. Gitea 1.22 in that state (no SIGNING_KEY, nothing in git's
 * user.signingkey) answers 200 with an empty text body, and clients take an empty key as "not signed": so does Hearth.
 */
const noSigningKey = (): Reply => ({ status: 200, content: '', headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

export const signingKeyRoutes = [
  route({
    method: 'get', path: '/signing-key.gpg', operationId: 'getSigningKey', summary: 'Get default signing-key.gpg', tag: 'miscellaneous',
    scope: null, responses: { 200: 'string' },
    handle: async () => noSigningKey(),
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/signing-key.gpg', operationId: 'repoSigningKey', summary: 'Get signing-key.gpg for given repository', tag: 'repository',
    scope: 'read:repository', repo: {}, responses: { 200: 'string', 404: 'notFound' },
    handle: async () => noSigningKey(),
  }),
];
