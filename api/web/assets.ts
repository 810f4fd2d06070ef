import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

/**
 * The folder of the web pages' stylesheet and scripts. The sources run from here; a bundle (dist/, the tests') lies
 * elsewhere, so the folder is looked for upwards from this module, under the project's `api/web/assets`.
 */
function assetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(dir, 'assets'), path.join(dir, 'api', 'web', 'assets')]) {
      if (existsSync(path.join(candidate, 'hearth.css'))) return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('the web assets (api/web/assets/hearth.css) are missing');
    dir = parent;
  }
}

/** `/assets/…`: the stylesheet and the plain script modules, served as files (no bundler). */
export function webAssets(): Router {
  const router = Router();
  router.use('/assets', express.static(assetsDir(), { index: false, maxAge: '1h' }));
  return router;
}
