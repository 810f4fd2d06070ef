import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { chromium } from 'playwright-core';
import { build } from '../helpers/build.js';
import { Browser, type Page } from '../helpers/browser.js';
import { drain } from '../helpers/drain.js';
import { basicAuth, startHearth, type TestHearth } from '../helpers/hearth.js';
import { root } from '../helpers/processes.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const loopbackAllowed = { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' };

/** The figures a queue's row shows, by their data-figure name. */
function queueRow(html: string, queue: string): Record<string, string> {
  const row = new RegExp(`<tr id="queue-${queue}"[^>]*>([\\s\\S]*?)</tr>`).exec(html);
  if (!row) throw new Error(`no row for queue ${queue}`);
  return Object.fromEntries([...row[1].matchAll(/data-figure="([a-z_0-9]+)">([^<]*)</g)].map((match) => [match[1], match[2]]));
}

const jobState = async (hearth: TestHearth, id: string): Promise<string | undefined> =>
  (await hearth.store.db.query<{ state: string }>(`SELECT state::text AS state FROM pgboss.job WHERE id = $1`, [id]))[0]?.state;

/**
 * Real work that fails: two pushes to a repository whose hook's receiver answers 500, each delivery retried once and
 * failed for good (its retry limit lowered to the attempts made, so the test does not wait out pg-boss's backoff).
 * Answers the failed webhook-delivery jobs' ids.
 */
async function failedDeliveries(hearth: TestHearth, receiver: Receiver): Promise<string[]> {
  receiver.answer = () => ({ status: 500, body: 'down' });
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  await build.hook(hearth, { repoId: repo.id }, { url: receiver.url });
  await drain(hearth);
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' }, message: 'first' });
  await build.commit(hearth, repo, { files: { 'b.txt': 'b' }, message: 'second' });
  await drain(hearth);
  await hearth.store.db.query(
    `UPDATE pgboss.job SET retry_limit = retry_count, start_after = now() WHERE name = 'webhook-delivery' AND state = 'retry'`,
  );
  await drain(hearth, 'webhook-delivery');
  const rows = await hearth.store.db.query<{ id: string }>(
    `SELECT id FROM pgboss.job WHERE name = 'webhook-delivery' AND state = 'failed' ORDER BY created_on`,
  );
  return rows.map((row) => row.id);
}

async function adminBrowser(hearth: TestHearth): Promise<{ browser: Browser; root: Awaited<ReturnType<TestHearth['createUser']>> }> {
  const root = await hearth.createUser('root', { admin: true });
  const browser = new Browser(hearth.rootUrl);
  const signedIn = await browser.signIn('root', root.password);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  return { browser, root };
}

const retryForm = (page: Page, id: string): string => {
  const match = new RegExp(`action="(/-/admin/queues/webhook-delivery/jobs/${id}/retry)"`).exec(page.html);
  if (!match) throw new Error(`no retry form for ${id}`);
  return match[1];
};

test('an administrator sees each queue with the figures the API answers, the failed jobs with their error, and retries one by the form', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const failed = await failedDeliveries(hearth, receiver);
  t.is(failed.length, 2, 'each push made a delivery that failed');
  const { browser, root } = await adminBrowser(hearth);
  // a credential in a payload is never shown
  const mail = (await hearth.store.boss.send('mail', { to: ['ops@example.com'], subject: 'Reset', text: 'token=s3cret-reset' }, { retryLimit: 0 }))!;
  await hearth.store.boss.fetch('mail', { id: mail } as never);
  await hearth.store.boss.fail('mail', mail, { message: 'smtp: connection refused' });

  const overview = await browser.get('/-/admin');
  t.is(overview.status, 200);
  t.regex(overview.html, /href="\/-\/admin\/queues"/);
  t.regex(overview.html, /href="\/-\/admin\/mirrors"/);

  const page = await browser.get('/-/admin/queues');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const api = (await hearth.call('GET', '/admin/queues', { auth: root.bearer })).body as Array<{ name: string; counts: Record<string, number>; last_hour: Record<string, number> }>;
  const apiQueue = api.find((queue) => queue.name === 'webhook-delivery')!;
  t.like(apiQueue, { counts: { created: 0, retry: 0, active: 0 }, last_hour: { failed: 2 } });
  t.true(apiQueue.last_hour.completed >= 0);
  const row = queueRow(page.html, 'webhook-delivery');
  t.like(row, {
    created: String(apiQueue.counts.created), retry: String(apiQueue.counts.retry), active: String(apiQueue.counts.active),
    completed: String(apiQueue.last_hour.completed), failed: String(apiQueue.last_hour.failed), cancelled: String(apiQueue.last_hour.cancelled),
  });
  for (const queue of api) t.is(queueRow(page.html, queue.name).failed, String(queue.last_hour.failed), `${queue.name} failed`);
  t.regex(page.html, /<tr id="queue-webhook-delivery" data-queue="webhook-delivery" class="failing">/);
  t.regex(page.html, /<svg class="throughput"[^>]*aria-label="last hour: \d+ completed, 2 failed/, 'the chart counts the failures');
  t.regex(page.html, /<rect class="failed"/);
  t.regex(page.html, /receiver answered 500/, 'the error of each failed job');
  t.regex(page.html, /smtp: connection refused/);
  t.false(page.html.includes('s3cret'), 'a mail body may carry a token: never shown');
  t.regex(page.html, /id="admin-queues" data-refresh="3"/);

  // without the CSRF token, or with another browser's, the form is refused and nothing changes
  const action = retryForm(page, failed[0]);
  t.is((await browser.post(action, {})).status, 400);
  const stranger = new Browser(hearth.rootUrl);
  t.is((await browser.post(action, { _csrf: Browser.csrfOf(await stranger.get('/user/login')) })).status, 400);
  t.is(await jobState(hearth, failed[0]), 'failed');

  receiver.answer = () => ({ status: 200, body: 'ok' });
  const before = receiver.requests.length;
  const retried = await browser.post(action, { _csrf: Browser.csrfOf(page) });
  t.is(retried.status, 303);
  t.is(retried.location, '/-/admin/queues#queue-webhook-delivery');
  t.is(await jobState(hearth, failed[0]), 'retry');
  t.is(await jobState(hearth, failed[1]), 'failed', 'only the job retried');
  const ran = await drain(hearth, 'webhook-delivery');
  t.deepEqual(ran.map((job) => [job.id, job.outcome]), [[failed[0], 'done']]);
  t.is(receiver.requests.length, before + 1, 'delivered again');
  t.is(await jobState(hearth, failed[0]), 'completed');

  const after = await browser.get('/-/admin/queues');
  t.is(queueRow(after.html, 'webhook-delivery').failed, '1');
  t.false(after.html.includes(`data-job="${failed[0]}"`), 'no longer listed as failed');
  t.true(after.html.includes(`data-job="${failed[1]}"`));

  // a retry of a job that cannot be retried: refused, nothing changed
  t.is((await browser.post(action, { _csrf: Browser.csrfOf(after) })).status, 409);
  t.is(await jobState(hearth, failed[0]), 'completed');
  t.is((await browser.post('/-/admin/queues/nope/jobs/x/retry', { _csrf: Browser.csrfOf(after) })).status, 404);
});

test('only site administrators see the pages, by session or basic authentication; everyone else gets the 404 page', async (t) => {
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const alice = await hearth.createUser('alice');
  const reader = await hearth.createUser('reader', { admin: true, scopes: ['read:repository'] });
  const anonymous = new Browser(hearth.rootUrl);
  const plain = new Browser(hearth.rootUrl);
  await plain.signIn('alice', alice.password);
  for (const path of ['/-/admin', '/-/admin/queues', '/-/admin/mirrors']) {
    for (const [who, answer] of [
      ['anonymous', await anonymous.get(path)],
      ['a plain user', await plain.get(path)],
      ['a plain user by basic', await anonymous.get(path, { Authorization: basicAuth('alice', alice.password) })],
      ['a wrong password', await anonymous.get(path, { Authorization: basicAuth('root', 'wrong') })],
      ['an admin token without the admin scope', await anonymous.get(path, { Authorization: basicAuth('reader', reader.token) })],
    ] as const) {
      t.is(answer.status, 404, `${who} on ${path}`);
      t.regex(answer.html, /Page not found/);
    }
    const byBasic = await anonymous.get(path, { Authorization: basicAuth('root', root.password) });
    t.is(byBasic.status, 200, `basic authentication on ${path}`);
  }
  const id = (await hearth.store.boss.send('mail', { to: ['a@example.com'], subject: 's', text: 't' }, { retryLimit: 0 }))!;
  await hearth.store.boss.fetch('mail', { id } as never);
  await hearth.store.boss.fail('mail', id, { message: 'no' });
  const form = await plain.get('/');
  t.is((await plain.post(`/-/admin/queues/mail/jobs/${id}/retry`, { _csrf: Browser.csrfOf(form) })).status, 404, 'a plain user cannot retry');
  t.is(await jobState(hearth, id), 'failed');
});

test('the mirror page marks failing and overdue mirrors with their errors, never a password', async (t) => {
  const hearth = await startHearth(t);
  const { browser } = await adminBrowser(hearth);
  const alice = await hearth.createUser('alice');
  const pulled = await build.repo(hearth, alice, { name: 'pulled' });
  const pushed = await build.repo(hearth, alice, { name: 'pushed' });
  const { db } = hearth.store;
  await db.query(
    `INSERT INTO mirror (repo_id, interval_seconds, remote_address, updated, next_update) VALUES ($1, 3600, 'https://example.com/up.git', now() - interval '5 minutes', now() + interval '55 minutes')`,
    [pulled.id],
  );
  await db.query(
    `INSERT INTO push_mirror (repo_id, remote_name, remote_address, interval_seconds, next_update, last_update, last_error)
     VALUES ($1, 'remote_mirror_x', 'https://bot:hunter2@example.com/down.git', 600, now() - interval '1 hour', now() - interval '70 minutes', 'authentication failed')`,
    [pushed.id],
  );
  const page = await browser.get('/-/admin/mirrors');
  t.is(page.status, 200);
  t.regex(page.html, /<tr data-mirror="alice\/pulled:pull">/, 'a healthy mirror is not marked');
  t.regex(page.html, /<tr class="failing overdue" data-mirror="alice\/pushed:push\d+">/);
  t.regex(page.html, /<td class="error">authentication failed<\/td>/);
  t.regex(page.html, /2 mirrors, 1 failing, 1 overdue/);
  t.regex(page.html, /https:\/\/example\.com\/down\.git/);
  t.false(page.html.includes('hunter2'));
});

/** Chromium's path, installed from the distribution when missing; or why it cannot be had. */
async function chromiumPath(): Promise<{ path: string } | { missing: string }> {
  try {
    await promisify(execFile)('bash', [path.join(root, 'tests', 'helpers', 'ensure-client.sh'), 'chromium', 'chromium'], { timeout: 300_000 });
    const { stdout } = await promisify(execFile)('bash', ['-c', 'command -v chromium']);
    return { path: stdout.trim() };
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    return { missing: `chromium is not installed and could not be (${stderr || String(error)})` };
  }
}

test('in headless Chromium: sign in, read the queue figures, click Retry on a failed job and see it succeed without reloading', async (t) => {
  t.timeout(360_000, 'installing chromium the first time');
  const browserPath = await chromiumPath();
  if ('missing' in browserPath) {
    t.log(`skipped: ${browserPath.missing}`);
    t.pass();
    return;
  }
  t.timeout(60_000);
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const failed = await failedDeliveries(hearth, receiver);
  const admin = await hearth.createUser('root', { admin: true });

  const browser = await chromium.launch({ executablePath: browserPath.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ baseURL: hearth.rootUrl, viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  // the browser asks for /favicon.ico, which Hearth has not got
  page.on('console', (message) => { if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(`${message.text()} ${message.location().url}`); });
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto('user/login');
  await page.fill('input[name="user_name"]', 'root');
  await page.fill('input[name="password"]', admin.password);
  await Promise.all([page.waitForURL(hearth.rootUrl), page.click('form.panel button[type="submit"]')]);
  t.is(await page.textContent('a.signed-in'), 'root');

  await page.goto('-/admin/queues');
  const figure = (queue: string, name: string): Promise<string | null> => page.textContent(`#queue-${queue} [data-figure="${name}"]`);
  t.is(await figure('webhook-delivery', 'failed'), '2');
  t.is(await figure('webhook-delivery', 'created'), '0');
  t.is(await page.locator('#failed-webhook-delivery tr[data-job]').count(), 2);
  t.regex((await page.textContent(`tr[data-job="${failed[0]}"] td.error`)) ?? '', /receiver answered 500/);
  t.true(await page.locator('svg.throughput rect.failed').count() > 0, 'the chart shows the failures');

  receiver.answer = () => ({ status: 200, body: 'ok' });
  await Promise.all([page.waitForURL(/\/-\/admin\/queues#queue-webhook-delivery$/), page.click(`tr[data-job="${failed[0]}"] button`)]);
  t.is(await jobState(hearth, failed[0]), 'retry');
  t.is(await page.locator(`tr[data-job="${failed[0]}"]`).count(), 0, 'no longer listed as failed');

  // the worker runs it; the page, not reloaded, shows the new figures at its next refresh
  await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true; });
  const ran = await drain(hearth, 'webhook-delivery');
  t.deepEqual(ran.map((job) => [job.id, job.outcome]), [[failed[0], 'done']]);
  t.is(await jobState(hearth, failed[0]), 'completed');
  const completedBefore = Number(await figure('webhook-delivery', 'completed'));
  await page.waitForFunction(
    (before) => Number(document.querySelector('#queue-webhook-delivery [data-figure="completed"]')?.textContent) > before, completedBefore, { timeout: 10_000 },
  );
  t.true(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true), 'refreshed in place');
  t.is(await figure('webhook-delivery', 'failed'), '1');
  t.true(await page.locator('svg.throughput rect.completed').count() > 0);

  await mkdir(path.join(root, 'tests', '.output'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'tests', '.output', 'admin-queues.png'), fullPage: true });
  t.deepEqual(problems, [], 'no script error or CSP violation');
});
