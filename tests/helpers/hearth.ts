import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { pino } from 'pino';
import { allActors } from '../../actors/index.js';
import { createApp } from '../../api/app.js';
import type { Deps } from '../../api/deps.js';
import { continueOnFirstRead } from '../../api/http/continue.js';
import { openStore, type OpenStore } from '../../db/process/boot.js';
import { loadConfig, type Config } from '../../db/process/config.js';
import { buildServices } from '../../db/services.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { actorDeps, chooseActors, subscribe, type Subscription } from '../../workers/subscribe.js';
import { testStorage } from './blobs.js';
import { build } from './build.js';
import { startS3Server, type TestS3 } from './s3-server.js';
import type { UserOptions } from './factories/users.js';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  auth?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestUser {
  user: UserRow;
  password: string;
  token: string;
  basic: string;
  bearer: string;
}

export interface TestHearth {
  /** e.g. http://127.0.0.1:PORT/ */
  rootUrl: string;
  databaseUrl: string;
  config: Config;
  deps: Deps;
  store: OpenStore;
  call<T = any>(method: string, apiPath: string, options?: CallOptions): Promise<Answer<T>>;
  /** `build.user` with a name. */
  createUser(name: string, options?: Omit<UserOptions, 'name'>): Promise<TestUser>;
  /** Runs the worker's actors (HEARTH_ACTORS-style selection) in this process, on real jobs. */
  startWorker(selection?: string): Promise<Subscription>;
  /** The S3 server the blobs go to, under HEARTH_TEST_STORAGE=minio. */
  s3?: TestS3;
}

export const basicAuth = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A database cloned from the migrated template, for one test file (or one test). */
export async function cloneDatabase(): Promise<string> {
  const adminUrl = process.env.HEARTH_TEST_ADMIN_URL;
  const template = process.env.HEARTH_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('run the tests with `npm test` (it prepares the database)');
  const name = `${template.replace('hearth_tpl_', 'hearth_t_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A test password hash strength that keeps the suite fast; one test checks the production default separately. */
export const fastPasswordHash = 'pbkdf2$10000$50';

/**
 * Starts Hearth's web app on a real socket over its own database. `settings` are HEARTH__SECTION__KEY
 * variables, as an operator would set them. Everything is torn down when the test (file) ends.
 * Under HEARTH_TEST_STORAGE=minio the blobs go to an S3 server of its own (`settings` may still say otherwise).
 */
export async function startHearth(t: ExecutionContext, settings: Record<string, string> = {}): Promise<TestHearth> {
  const s3 = testStorage === 'minio' ? await startS3Server(t) : undefined;
  if (s3) settings = { ...s3.settings(), ...settings };
  const databaseUrl = await cloneDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hearth-data-'));
  const server: Server = createServer();
  // fetch keeps connections for 4 s: a server closing an idle one at the same moment (its default 5 s, late on a busy machine) fails the next call
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const config = loadConfig({
    PORT: String(port),
    HEARTH_ROOT_URL: `http://127.0.0.1:${port}/`,
    HEARTH_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    HEARTH__security__SECRET_KEY: 'test-secret-key',
    HEARTH__security__PASSWORD_HASH_ALGO: fastPasswordHash,
    ...settings,
  });
  const log = pino({ level: process.env.HEARTH_TEST_LOG ?? 'silent' });
  const store = await openStore(databaseUrl, 'web');
  const deps: Deps = { ...store, ...buildServices(config, log) };
  server.on('request', createApp(deps));
  continueOnFirstRead(server);
  const subscriptions: Subscription[] = [];
  t.teardown(async () => {
    for (const subscription of subscriptions) await subscription.drain();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    await deps.digests.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async <T>(method: string, apiPath: string, options: CallOptions = {}): Promise<Answer<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth) headers.Authorization = options.auth;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const target = apiPath.startsWith('/api/') || apiPath.startsWith('/swagger') ? apiPath : `/api/v1${apiPath}`;
    const response = await fetch(`${config.rootUrl}${target.slice(1)}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: body as T, headers: response.headers };
  };

  const hearth: TestHearth = {
    rootUrl: config.rootUrl,
    databaseUrl,
    config,
    deps,
    store,
    call,
    s3,
    createUser: (name, options = {}) => build.user(hearth, { name, ...options }),
    async startWorker(selection) {
      const subscription = await subscribe(chooseActors(allActors, selection), actorDeps(store, config, log), databaseUrl);
      subscriptions.push(subscription);
      return subscription;
    },
  };
  return hearth;
}
