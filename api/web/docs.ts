import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router } from 'express';
import type { Deps } from '../deps.js';

/** Where the packaged Swagger UI (swagger-ui-dist) lies on disk. */
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Pages only load their own scripts and styles (Swagger UI sets inline styles and data: images). */
const pageHeaders = {
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

/**
 * `/api/swagger`: Swagger UI over `/swagger.v1.json` (where Gitea's error bodies point), from the packaged UI. The
 * front page is the web face's (api/web/pages), whose footer links here.
 */
export function docsPages(deps: Deps): Router {
  const router = Router();
  const base = new URL(deps.config.rootUrl).pathname; // '/' or a sub-path such as '/git/'
  const name = escapeHtml(deps.config.appName);
  const swaggerPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${name} API</title><link rel="stylesheet" href="${base}api/swagger/ui/swagger-ui.css"></head>
<body>
<div id="swagger-ui"></div>
<script src="${base}api/swagger/ui/swagger-ui-bundle.js"></script>
<script src="${base}api/swagger/start.js"></script>
</body>
</html>
`;
  const start = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${base}swagger.v1.json`)}, dom_id: '#swagger-ui', deepLinking: true });\n`;

  router.get('/api/swagger', (_req, res) => {
    res.set(pageHeaders).type('html').send(swaggerPage);
  });
  router.get('/api/swagger/start.js', (_req, res) => {
    res.type('application/javascript').send(start);
  });
  router.use('/api/swagger/ui', express.static(swaggerUiDir, { index: false, maxAge: '1d' }));
  return router;
}
