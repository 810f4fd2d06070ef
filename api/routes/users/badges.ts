import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { addUserBadges, listUserBadges, removeUserBadges } from '../../../db/models/users/badges.js';
import { getIndividualByName } from '../../../db/models/users/users.js';
import { noContent, route } from '../../http/route.js';
import { renderBadge } from '../../render/badge.js';

const badgesBody = z.object({ badge_slugs: z.array(z.string().min(1).max(255)).max(100).default([]) });

export const badgeRoutes = [
  route({
    method: 'get', path: '/admin/users/{username}/badges', operationId: 'adminListUserBadges', summary: "List a user's badges", tag: 'admin',
    scope: 'read:admin', admin: true, responses: { 200: 'BadgeList', 404: 'notFound' },
    handle: async ({ deps, params }) => {
      const { badges, total } = await listUserBadges(deps.db, await getIndividualByName(deps.db, params.username));
      return { status: 200, body: badges.map(renderBadge), headers: { 'X-Total-Count': String(total) } };
    },
  }),
  route({
    method: 'post', path: '/admin/users/{username}/badges', operationId: 'adminAddUserBadges', summary: 'Add a badge to a user', tag: 'admin',
    scope: 'write:admin', admin: true, body: badgesBody, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, params, body }) => {
      const user = await getIndividualByName(deps.db, params.username);
      await inTx(deps, (tx) => addUserBadges(tx, user, body.badge_slugs));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/admin/users/{username}/badges', operationId: 'adminDeleteUserBadges', summary: 'Remove a badge from a user', tag: 'admin',
    scope: 'write:admin', admin: true, body: badgesBody, responses: { 204: 'empty', 403: 'forbidden', 404: 'notFound', 422: 'validationError' },
    handle: async ({ deps, params, body }) => {
      const user = await getIndividualByName(deps.db, params.username);
      await inTx(deps, (tx) => removeUserBadges(tx, user, body.badge_slugs));
      return noContent();
    },
  }),
];
