import { Router } from 'express';
import type { Deps } from '../deps.js';
import { genericRegistry } from './generic.js';
import { npmRegistry } from './npm.js';
import { cargoRegistry } from './cargo.js';
import { mavenRegistry } from './maven.js';
import { pypiRegistry } from './pypi.js';
import { containerRegistry } from './container.js';

/**
 * The registry protocols, outside /api/v1 as in Gitea: `/api/packages/{owner}/{type}/...` and the container
 * registry's `/v2/...`, each spoken the way its ecosystem's client expects. With `[packages] ENABLED = false` nothing is mounted.
 */
export function packageRegistries(deps: Deps): Router {
  const router = Router();
  if (!deps.config.packages.enabled) return router;
  router.use('/api/packages/:owner/generic', genericRegistry(deps).router);
  router.use('/api/packages/:owner/npm', npmRegistry(deps).router);
  router.use('/api/packages/:owner/cargo', cargoRegistry(deps).router);
  router.use('/api/packages/:owner/maven', mavenRegistry(deps).router);
  router.use('/api/packages/:owner/pypi', pypiRegistry(deps).router);
  // OCI clients expect the registry at the root of the host
  router.use('/v2', containerRegistry(deps));
  return router;
}
