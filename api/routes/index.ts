import type { RouteDefinition } from '../http/route.js';
import { adminUserRoutes } from './admin-users.js';
import { miscRoutes } from './misc.js';
import { repoRoutes } from './repos.js';
import { tokenRoutes } from './tokens.js';
import { userRoutes } from './users.js';

/** Every /api/v1 route, in one table. An area adds its list here. */
export const apiRoutes: RouteDefinition[] = [...miscRoutes, ...userRoutes, ...tokenRoutes, ...adminUserRoutes, ...repoRoutes];
