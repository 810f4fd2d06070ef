import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseIni } from 'ini';
import { passwordAlgorithm } from '../crypto.js';

/** Every setting Hearth reads, typed, with CONTRACT.md's defaults. Built once per process. */
export interface Config {
  port: number;
  rootUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  bootAdmin: { username: string; password: string; email: string } | undefined;
  actions: { enabled: boolean };
  service: { allowCrossRepositoryDependencies: boolean; enableReverseProxyAuthenticationApi: boolean };
  security: {
    disableQueryAuthToken: boolean;
    reverseProxyAuthenticationUser: string;
    reverseProxyTrustedProxies: string[];
    /** Resolved to its stored form, `pbkdf2$ITERATIONS$KEYLEN`. */
    passwordHashAlgo: string;
    secretKey: string;
  };
  repository: { maxCreationLimit: number; allowForkWithoutMaximumLimit: boolean };
  /** `[repository.issue]`. */
  repositoryIssue: { maxPinned: number };
  ui: { reactions: string[] };
  webhook: { allowedHostList: string; deliverTimeoutSeconds: number; skipTlsVerify: boolean; proxyUrl: string | undefined; proxyHosts: string[] };
  migrations: { allowLocalNetworks: boolean };
  mirror: { minInterval: string; defaultInterval: string };
  mailer: { enabled: boolean; smtpAddr: string | undefined; smtpPort: number | undefined; from: string | undefined };
  packages: { enabled: boolean };
  log: { level: string };
  /** HEARTH_ACTORS: the actors a worker process runs, comma-separated; unset or `all` for every one. */
  worker: { actors: string | undefined };
}

type Sections = Record<string, Record<string, string>>;

/** Reads the INI file (HEARTH_CONFIG or $HEARTH_DATA_DIR/app.ini) and HEARTH__SECTION__KEY overrides. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  const dataDir = path.resolve(env.HEARTH_DATA_DIR ?? './data');
  const sections = readSections(env, dataDir);
  const get = (section: string, key: string): string | undefined => sections[section]?.[key.toUpperCase()];
  const bool = (section: string, key: string, fallback: boolean): boolean => {
    const value = get(section, key);
    return value === undefined ? fallback : /^(1|true|yes|on)$/i.test(value.trim());
  };
  const num = (section: string, key: string, fallback: number): number => {
    const value = Number(get(section, key));
    return get(section, key) === undefined || Number.isNaN(value) ? fallback : value;
  };
  const list = (section: string, key: string, fallback: string[]): string[] => {
    const value = get(section, key);
    return value === undefined ? fallback : value.split(',').map((s) => s.trim()).filter(Boolean);
  };
  let rootUrl = env.HEARTH_ROOT_URL ?? get('server', 'ROOT_URL') ?? `http://localhost:${port}/`;
  if (!rootUrl.endsWith('/')) rootUrl += '/';
  const { HEARTH_ADMIN_USERNAME: u, HEARTH_ADMIN_PASSWORD: p, HEARTH_ADMIN_EMAIL: e } = env;
  return {
    port,
    rootUrl,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    bootAdmin: u && p && e ? { username: u, password: p, email: e } : undefined,
    actions: { enabled: bool('actions', 'ENABLED', false) },
    service: {
      allowCrossRepositoryDependencies: bool('service', 'ALLOW_CROSS_REPOSITORY_DEPENDENCIES', true),
      enableReverseProxyAuthenticationApi: bool('service', 'ENABLE_REVERSE_PROXY_AUTHENTICATION_API', false),
    },
    security: {
      disableQueryAuthToken: bool('security', 'DISABLE_QUERY_AUTH_TOKEN', false),
      reverseProxyAuthenticationUser: get('security', 'REVERSE_PROXY_AUTHENTICATION_USER') ?? 'X-WEBAUTH-USER',
      reverseProxyTrustedProxies: list('security', 'REVERSE_PROXY_TRUSTED_PROXIES', ['127.0.0.0/8', '::1/128']),
      passwordHashAlgo: passwordAlgorithm(get('security', 'PASSWORD_HASH_ALGO') ?? 'pbkdf2'),
      secretKey: get('security', 'SECRET_KEY') ?? '',
    },
    repository: {
      maxCreationLimit: num('repository', 'MAX_CREATION_LIMIT', -1),
      allowForkWithoutMaximumLimit: bool('repository', 'ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT', true),
    },
    repositoryIssue: { maxPinned: num('repository.issue', 'MAX_PINNED', 3) },
    ui: { reactions: list('ui', 'REACTIONS', ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes']) },
    webhook: {
      allowedHostList: get('webhook', 'ALLOWED_HOST_LIST') ?? 'external',
      deliverTimeoutSeconds: num('webhook', 'DELIVER_TIMEOUT', 5),
      skipTlsVerify: bool('webhook', 'SKIP_TLS_VERIFY', false),
      proxyUrl: get('webhook', 'PROXY_URL') || undefined,
      proxyHosts: list('webhook', 'PROXY_HOSTS', []),
    },
    migrations: { allowLocalNetworks: bool('migrations', 'ALLOW_LOCALNETWORKS', false) },
    mirror: {
      minInterval: get('mirror', 'MIN_INTERVAL') ?? '10m',
      defaultInterval: get('mirror', 'DEFAULT_INTERVAL') ?? '8h',
    },
    mailer: {
      enabled: bool('mailer', 'ENABLED', false),
      smtpAddr: get('mailer', 'SMTP_ADDR'),
      smtpPort: get('mailer', 'SMTP_PORT') === undefined ? undefined : num('mailer', 'SMTP_PORT', 25),
      from: get('mailer', 'FROM'),
    },
    packages: { enabled: bool('packages', 'ENABLED', true) },
    log: { level: get('log', 'LEVEL')?.toLowerCase() ?? env.LOG_LEVEL ?? 'info' },
    worker: { actors: env.HEARTH_ACTORS || undefined },
  };
}

function readSections(env: NodeJS.ProcessEnv, dataDir: string): Sections {
  const file = env.HEARTH_CONFIG ?? path.join(dataDir, 'app.ini');
  const sections: Sections = {};
  const put = (section: string, key: string, value: string): void => {
    const name = section.toLowerCase();
    (sections[name] ??= {})[key.toUpperCase()] = value;
  };
  if (existsSync(file)) {
    const parsed = parseIni(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // `[repository.issue]` comes back nested under `repository`
    const putSection = (section: string, body: object): void => {
      for (const [key, value] of Object.entries(body)) {
        if (value && typeof value === 'object') putSection(`${section}.${key}`, value);
        else put(section, key, String(value));
      }
    };
    for (const [section, body] of Object.entries(parsed)) {
      if (body && typeof body === 'object') putSection(section, body);
    }
  } else if (env.HEARTH_CONFIG) {
    throw new Error(`HEARTH_CONFIG names ${file}, which does not exist`);
  }
  for (const [name, value] of Object.entries(env)) {
    const match = /^HEARTH__([^_]+(?:_[^_]+)*)__(.+)$/.exec(name);
    if (match && value !== undefined) put(match[1], match[2], value);
  }
  return sections;
}
