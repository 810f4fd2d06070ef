import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { apiVersion } from '../../api/routes/instance/misc.js';
import { loadConfig } from '../../db/process/config.js';
import { startHearth } from '../helpers/hearth.js';

test('the front page names the instance and its version and links to the API documentation; unknown paths get the 404 page', async (t) => {
  const hearth = await startHearth(t, { HEARTH__DEFAULT__APP_NAME: 'Forge <of> Tests' });
  const home = await fetch(hearth.rootUrl);
  t.is(home.status, 200);
  t.regex(home.headers.get('content-type') ?? '', /^text\/html/);
  const html = await home.text();
  t.true(html.includes('<title>Explore - Forge &lt;of> Tests</title>'), html);
  t.true(html.includes(apiVersion));
  const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  for (const link of ['/api/swagger', '/swagger.v1.json']) {
    t.true(links.includes(link), link);
    t.is((await fetch(new URL(link, hearth.rootUrl))).status, 200, link);
  }

  const unknown = await fetch(new URL('no/such/page/here', hearth.rootUrl));
  t.is(unknown.status, 404);
  t.regex(unknown.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await unknown.text(), /<h1>Page not found<\/h1>/);
});

test("/api/swagger serves the packaged Swagger UI over /swagger.v1.json, where Gitea's error bodies point", async (t) => {
  const hearth = await startHearth(t);
  const refused = await hearth.call('GET', '/user');
  t.is(refused.body.url, `${hearth.rootUrl}api/swagger`);
  const page = await fetch(refused.body.url);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  t.true(html.includes('<div id="swagger-ui"></div>'));
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.deepEqual(assets, ['/api/swagger/ui/swagger-ui.css', '/api/swagger/ui/swagger-ui-bundle.js', '/api/swagger/start.js']);
  const types = ['text/css', '(text|application)/javascript', '(text|application)/javascript'];
  for (const [i, asset] of assets.entries()) {
    const answer = await fetch(new URL(asset, hearth.rootUrl));
    t.is(answer.status, 200, asset);
    t.regex(answer.headers.get('content-type') ?? '', new RegExp(`^${types[i]}`), asset);
    const text = await answer.text();
    if (asset.endsWith('bundle.js')) t.true(text.includes('SwaggerUIBundle'));
    if (asset.endsWith('start.js')) t.regex(text, /SwaggerUIBundle\(\{ url: "\/swagger\.v1\.json"/);
  }
  t.is((await fetch(new URL('/api/swagger/ui/missing.js', hearth.rootUrl))).status, 404);
});

test('APP_NAME is read from the top of app.ini, before any section, as Gitea writes it', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'app.ini'), 'APP_NAME = Team Forge\n\n[server]\nROOT_URL = http://forge.example/\n');
  const config = loadConfig({ HEARTH_DATA_DIR: dir });
  t.is(config.appName, 'Team Forge');
  t.is(config.rootUrl, 'http://forge.example/');
  t.is(loadConfig({ HEARTH_DATA_DIR: dir, HEARTH__DEFAULT__APP_NAME: 'Override' }).appName, 'Override');
  t.is(loadConfig({ HEARTH_DATA_DIR: path.join(dir, 'none') }).appName, 'Hearth');
});
