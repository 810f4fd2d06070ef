import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { authenticate } from './auth/authenticate.js';
import { sudo } from './auth/sudo.js';
import type { Deps } from './deps.js';
import { assertUtf8, mergeRepeatedSlashes, refuseDeepBodies } from './http/request-checks.js';
import { apiNotFound, errorHandler, requestPlace } from './http/errors.js';
import { mountRoutes } from './http/mount.js';
import { openApiDocument } from './openapi.js';
import { apiRoutes } from './routes/index.js';
import { apiVersion } from './routes/instance/misc.js';
import { repoAvatarFiles } from './routes/repos/repo-avatar.js';
import { userAvatarFiles } from './routes/users/user-avatar.js';
import { gitSmartHttp } from './git/smart-http.js';
import { docsPages } from './web/docs.js';
import { webAssets } from './web/assets.js';
import { webRoutes } from './web/index.js';
import { mountPages, notFoundPage } from './web/page.js';
import { webPages } from './web/pages/index.js';
import { oauth2Provider } from './oauth2/provider.js';
import { healthOf } from './health.js';
import { packageRegistries } from './packages/index.js';
import { actionsRunnerApi } from './actions/connect.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { metricsEndpoint } from './metrics/scrape.js';

/** The web process's Express application. Nothing here starts listening; server.ts and tests do. */
export function createApp(deps: Deps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Gitea's API answers carry no ETag; routes whose answers have a natural one (blobs, packages) set it themselves.
  app.set('etag', false);
  app.set('trust proxy', false);
  app.use(requestLog(deps));
  if (deps.config.metrics.enabled) app.use(httpMetrics);
  app.use(mergeRepeatedSlashes);

  app.get('/api/healthz', async (_req, res) => {
    const answer = await healthOf(deps);
    res.status(answer.status === 'pass' ? 200 : 503).json(answer);
  });
  const swagger = openApiDocument(apiRoutes, deps.config.rootUrl, apiVersion);
  app.get('/swagger.v1.json', (_req, res) => {
    res.json(swagger);
  });
  app.use(docsPages(deps));
  app.use(metricsEndpoint(deps));

  const api = express.Router();
  // Gitea reads the body of /markdown/raw as it comes, whatever its content type says.
  api.use('/markdown/raw', express.text({ limit: '10mb', type: () => true }));
  api.use(express.json({ limit: '10mb', type: ['application/json', 'text/plain'], verify: assertUtf8 }));
  api.use(refuseDeepBodies);
  api.use(authenticate(deps));
  api.use(sudo(deps));
  api.use(mountRoutes(apiRoutes, deps));
  api.use(apiNotFound);
  app.use('/api/v1', api);
  app.use(oauth2Provider(deps));
  // Gitea serves the runner API only while actions are enabled
  if (deps.config.actions.enabled) app.use('/api/actions', actionsRunnerApi(deps));
  app.use(packageRegistries(deps));
  app.use(gitSmartHttp(deps));
  app.use(repoAvatarFiles(deps));
  app.use(userAvatarFiles(deps));
  app.use(webRoutes(deps));
  app.use(webAssets());
  // the web face's pages come last: no API, git, package or download path reaches them
  app.use(mountPages(webPages, deps));
  app.use(notFoundPage(deps));
  app.use(errorHandler(deps.log, deps.config.rootUrl));
  return app;
}

/**
 * One line per request: method, the path as requested, the route it reached (for an API route the path its
 * declaration spells, as Gitea's API description does), status, duration. Headers, bodies and query strings are
 * never logged.
 */
function requestLog(deps: Deps) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      deps.log.info({ ...requestPlace(req, res), status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
