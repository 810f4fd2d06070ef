import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseIni } from 'ini';
import cronParser from 'cron-parser';
import { z } from 'zod';
import { passwordAlgorithm } from '../password-hash.js';
import { assertPassword, assertUsableName, assertValidEmail } from '../models/users/names.js';
import { giteaHint } from './config-hints.js';
import { resolveStorage, type BlobKind, type StorageKeys, type StorageTarget } from './storage-config.js';

/**
 * Every setting Hearth reads, typed and validated with zod when read. An INI section is a `section({...})` of
 * `key(INI_NAME, schema)` entries: adding a setting is one line there, and its type, default and error
 * message come from the schema. The property name is what the code reads (`config.webhook.deliverTimeoutSeconds`).
 */

const byteUnits: Record<string, number> = {
  '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30,
};

/** Values as written in app.ini or HEARTH__SECTION__KEY: strings, trimmed. */
const text = z.string().trim();
export const setting = {
  text,
  /** true/false, 1/0, yes/no, on/off (any case). */
  flag: text.pipe(z.stringbool({ error: 'expected true or false (also 1/0, yes/no, on/off)' })),
  integer: text.regex(/^-?\d+$/, 'expected a whole number').transform(Number),
  /** A whole number of seconds, not negative. */
  seconds: text.regex(/^\d+$/, 'expected a whole number of seconds, 0 or more').transform(Number),
  port: text.regex(/^\d+$/, 'expected a port number').transform(Number).pipe(z.number().int().min(1).max(65535)),
  /** Comma-separated, blanks dropped. */
  list: text.transform((value) => value.split(',').map((s) => s.trim()).filter(Boolean)),
  /** A Go-style duration such as 10m, 8h, 1h30m. */
  duration: text.regex(/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/, 'expected a duration such as 10m or 8h'),
  url: text.pipe(z.url()),
  /** A size as Gitea writes it (`-1`, `1024`, `500 MB`, `1GiB`): bytes, -1 for no limit. */
  bytes: text.transform((value, ctx) => {
    const match = /^(-?[0-9.]+)\s*([a-z]*)$/i.exec(value);
    const unit = match ? byteUnits[match[2].toLowerCase()] : undefined;
    const amount = match ? Number(match[1]) : NaN;
    if (unit === undefined || Number.isNaN(amount)) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as 1024, 500 MB or 1 GiB (-1 for no limit)' });
      return z.NEVER;
    }
    return amount < 0 ? -1 : Math.floor(amount * unit);
  }),
};

interface Key<S extends z.ZodType> {
  ini: string;
  schema: S;
}

/** One setting of a section: its name in app.ini and its schema (with `.default(...)` or `.optional()`). */
export function key<S extends z.ZodType>(ini: string, schema: S): Key<S> {
  return { ini: ini.toUpperCase(), schema };
}

type Keys = Record<string, Key<z.ZodType>>;
type SectionValues<K extends Keys> = { [P in keyof K]: z.output<K[P]['schema']> };

interface Section<K extends Keys> {
  keys: K;
  schema: z.ZodType<SectionValues<K>, Record<string, string>>;
}

function section<K extends Keys>(keys: K): Section<K> {
  const shape = Object.fromEntries(Object.values(keys).map((entry) => [entry.ini, entry.schema]));
  const schema = z.object(shape).transform(
    (values) =>
      Object.fromEntries(Object.entries(keys).map(([name, entry]) => [name, (values as Record<string, unknown>)[entry.ini]])) as SectionValues<K>,
  );
  return { keys, schema: schema as unknown as Section<K>['schema'] };
}

const reactions = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'].join(',');
const logLevel = text.toLowerCase().pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']));
const passwordHash = text.transform((value, ctx) => {
  try {
    return passwordAlgorithm(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'expected pbkdf2, pbkdf2_v2, pbkdf2_hi, argon2, bcrypt, scrypt or a specification such as pbkdf2$50000$50' });
    return z.NEVER;
  }
});

/** Gitea's default [attachment] ALLOWED_TYPES. */
const defaultAttachmentTypes = '.avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip';

/** Gitea's package types, each with its LIMIT_SIZE_<TYPE>. */
const packageTypes = [
  'alpine', 'cargo', 'chef', 'composer', 'conan', 'conda', 'container', 'cran', 'debian', 'generic', 'go', 'helm', 'maven', 'npm',
  'nuget', 'pub', 'pypi', 'rpm', 'rubygems', 'swift', 'vagrant',
] as const;
const packageSizeLimits = Object.fromEntries(
  packageTypes.map((type) => [`limitSize_${type}`, key(`LIMIT_SIZE_${type.toUpperCase()}`, setting.bytes.default(-1))]),
) as Record<`limitSize_${(typeof packageTypes)[number]}`, Key<z.ZodDefault<typeof setting.bytes>>>;

/** Gitea's schedule macros that cron-parser lacks, as five-field cron expressions. */
const scheduleMacros: Record<string, string> = { '@midnight': '0 0 * * *', '@daily': '0 0 * * *', '@hourly': '0 * * * *', '@weekly': '0 0 * * 0', '@monthly': '0 0 1 * *' };

/**
 * A cron task's SCHEDULE: a five-field cron expression (UTC), one of Gitea's macros (@midnight, @hourly, @daily,
 * @weekly, @monthly), or Gitea's `@every <duration>` for a whole number of minutes that divides an hour or of hours
 * that divides a day. Read as a five-field expression.
 */
const cronSchedule = text.transform((value, ctx) => {
  const every = /^@every\s+(\d+)(m|h)$/.exec(value);
  const expression = every
    ? (every[2] === 'm' && 60 % Number(every[1]) === 0 ? `*/${every[1]} * * * *`
      : every[2] === 'h' && 24 % Number(every[1]) === 0 ? `0 */${every[1]} * * *` : undefined)
    : (scheduleMacros[value] ?? value);
  if (expression === undefined || expression.split(/\s+/).length !== 5 || !validCron(expression)) {
    ctx.addIssue({ code: 'custom', message: 'expected a cron expression such as "0 * * * *", @midnight, @hourly or @every 10m' });
    return z.NEVER;
  }
  return expression;
});

function validCron(expression: string): boolean {
  try {
    cronParser.parseExpression(expression, { tz: 'UTC' });
    return true;
  } catch {
    return false;
  }
}

/** `[cron.<task>]`: Gitea's ENABLED and SCHEDULE of one periodic task, with the task's own keys. */
function cronSection<K extends Keys>(enabled: boolean, schedule: string, extra: K) {
  return section({
    enabled: key('ENABLED', setting.flag.default(enabled)),
    schedule: key('SCHEDULE', cronSchedule.prefault(schedule)),
    ...extra,
  });
}

const storageType = text.toLowerCase().pipe(z.enum(['local', 'minio'], { error: 'expected local or minio' }));

/**
 * What a kind of blob's own section ([attachment], [packages], [avatar]) may say about its storage, as Gitea reads it:
 * with its own STORAGE_TYPE the section names its store itself (unset keys fall back to [storage]'s); without one it
 * takes [storage]'s and may change only MINIO_BUCKET, MINIO_BASE_PATH and SERVE_DIRECT.
 */
const storageOverrides = () => ({
  storageType: key('STORAGE_TYPE', storageType.optional()),
  minioEndpoint: key('MINIO_ENDPOINT', text.optional()),
  minioAccessKeyId: key('MINIO_ACCESS_KEY_ID', text.optional()),
  minioSecretAccessKey: key('MINIO_SECRET_ACCESS_KEY', text.optional()),
  minioBucket: key('MINIO_BUCKET', text.optional()),
  minioLocation: key('MINIO_LOCATION', text.optional()),
  minioUseSsl: key('MINIO_USE_SSL', setting.flag.optional()),
  minioBasePath: key('MINIO_BASE_PATH', text.optional()),
  serveDirect: key('SERVE_DIRECT', setting.flag.optional()),
});

/** The INI sections and their keys (CONTRACT.md's defaults). */
export const sections = {
  /** Keys before any section header. */
  default: section({
    /** Gitea's APP_NAME (`HEARTH__DEFAULT__APP_NAME`): the instance's name on its home page. */
    appName: key('APP_NAME', text.default('Hearth')),
  }),
  server: section({
    /** The public address of the web process, as links and clone URLs show it. */
    rootUrl: key('ROOT_URL', setting.url.optional()),
    startSshServer: key('START_SSH_SERVER', setting.flag.default(true)),
    disableSsh: key('DISABLE_SSH', setting.flag.default(false)),
    /** The port ssh_url advertises; SSH_LISTEN_PORT when unset. */
    sshPort: key('SSH_PORT', setting.port.optional()),
    sshListenPort: key('SSH_LISTEN_PORT', setting.port.default(2222)),
    /** Hearth's: seconds a stopping web process keeps serving while /api/healthz answers 503, so a load balancer takes it out first. */
    drainSeconds: key('DRAIN_SECONDS', setting.seconds.default(0)),
    sshListenHost: key('SSH_LISTEN_HOST', text.default('0.0.0.0')),
    /** The host ssh_url advertises; ROOT_URL's host when unset. */
    sshDomain: key('SSH_DOMAIN', text.optional()),
    builtinSshServerUser: key('BUILTIN_SSH_SERVER_USER', text.regex(/^[\w.-]+$/, 'expected a user name').default('git')),
    /** Host key files, relative to the data directory; made at the first start when missing. */
    sshServerHostKeys: key('SSH_SERVER_HOST_KEYS', setting.list.default(['ssh/hearth.ed25519', 'ssh/hearth.rsa'])),
    sshServerCiphers: key('SSH_SERVER_CIPHERS', setting.list.default(['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'])),
    sshServerKeyExchanges: key('SSH_SERVER_KEY_EXCHANGES', setting.list.default(['curve25519-sha256', 'curve25519-sha256@libssh.org', 'ecdh-sha2-nistp256', 'ecdh-sha2-nistp384', 'ecdh-sha2-nistp521', 'diffie-hellman-group14-sha256'])),
    sshServerMacs: key('SSH_SERVER_MACS', setting.list.default(['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com', 'hmac-sha2-256', 'hmac-sha2-512'])),
    /** Hearth's own limits of the SSH server. */
    sshLoginGraceTime: key('SSH_LOGIN_GRACE_TIME', setting.seconds.default(30)),
    sshIdleTimeout: key('SSH_IDLE_TIMEOUT', setting.seconds.default(600)),
    sshMaxSessions: key('SSH_MAX_SESSIONS', setting.integer.pipe(z.number().min(1)).default(200)),
    sshMaxSessionsPerKey: key('SSH_MAX_SESSIONS_PER_KEY', setting.integer.pipe(z.number().min(1)).default(20)),
  }),
  actions: section({
    /** Actions settings, runs and runners (experimental). */
    enabled: key('ENABLED', setting.flag.default(false)),
  }),
  service: section({
    /** Issues may depend on issues of other repositories. */
    allowCrossRepositoryDependencies: key('ALLOW_CROSS_REPOSITORY_DEPENDENCIES', setting.flag.default(true)),
    /** The API trusts the user header of REVERSE_PROXY_AUTHENTICATION_USER from trusted proxies. */
    enableReverseProxyAuthenticationApi: key('ENABLE_REVERSE_PROXY_AUTHENTICATION_API', setting.flag.default(false)),
    /** Tracked times and stopwatches. */
    enableTimetracking: key('ENABLE_TIMETRACKING', setting.flag.default(true)),
  }),
  security: section({
    /** Refuse the deprecated `token` and `access_token` query parameters. */
    disableQueryAuthToken: key('DISABLE_QUERY_AUTH_TOKEN', setting.flag.default(false)),
    /** The header naming the user, from a trusted proxy. */
    reverseProxyAuthenticationUser: key('REVERSE_PROXY_AUTHENTICATION_USER', text.default('X-WEBAUTH-USER')),
    /** Addresses (CIDR) whose user header is trusted. */
    reverseProxyTrustedProxies: key('REVERSE_PROXY_TRUSTED_PROXIES', setting.list.default(['127.0.0.0/8', '::1/128'])),
    /** `pbkdf2` (the default: 320,000 iterations, 50-byte key, SHA-256), `pbkdf2_v2`, `pbkdf2_hi`, `argon2`, `bcrypt`, `scrypt`, or Gitea's specification form (`pbkdf2$50000$50`, `argon2$2$65536$8$50`, `bcrypt$10`, `scrypt$65536$16$2$50`); older hashes are rehashed with it at the next sign-in. */
    passwordHashAlgo: key('PASSWORD_HASH_ALGO', passwordHash.default(passwordAlgorithm('pbkdf2'))),
    /** Encrypts secrets at rest (TOTP seeds, mirror credentials, actions secrets); empty: generated once into $HEARTH_DATA_DIR/secret.key. */
    secretKey: key('SECRET_KEY', text.default('')),
    /** Administrators may migrate from paths on the server. */
    importLocalPaths: key('IMPORT_LOCAL_PATHS', setting.flag.default(false)),
  }),
  repository: section({
    /** Repositories a user may create; -1 for no limit. */
    maxCreationLimit: key('MAX_CREATION_LIMIT', setting.integer.pipe(z.number().min(-1)).default(-1)),
    /** Forks do not count against MAX_CREATION_LIMIT. */
    allowForkWithoutMaximumLimit: key('ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT', setting.flag.default(true)),
  }),
  /** Files attached to issues and comments; `maxSize` in MiB. */
  attachment: section({
    /** Attachments of issues and comments. */
    enabled: key('ENABLED', setting.flag.default(true)),
    /** Extensions and MIME types (`.txt,image/*`); empty allows all. */
    allowedTypes: key('ALLOWED_TYPES', text.default(defaultAttachmentTypes)),
    /** MiB per file. */
    maxSize: key('MAX_SIZE', setting.integer.pipe(z.number().min(0)).default(2048)),
    /** Files per upload. */
    maxFiles: key('MAX_FILES', setting.integer.pipe(z.number().min(0)).default(5)),
    /** Where attachments (of issues, comments and releases) are stored: see [storage]. */
    ...storageOverrides(),
  }),
  /** Where blobs (attachments, packages, avatars) are stored, unless their own section says otherwise. */
  storage: section({
    /** `local` (files under $HEARTH_DATA_DIR/blobs) or `minio` (any S3-compatible object store). */
    storageType: key('STORAGE_TYPE', storageType.default('local')),
    /** host:port of the object store. */
    minioEndpoint: key('MINIO_ENDPOINT', text.default('localhost:9000')),
    /** Empty: the SDK's own credentials (AWS_ACCESS_KEY_ID, an instance role). */
    minioAccessKeyId: key('MINIO_ACCESS_KEY_ID', text.default('')),
    /** A secret: never logged nor shown. */
    minioSecretAccessKey: key('MINIO_SECRET_ACCESS_KEY', text.default('')),
    /** Created at the first write when missing. */
    minioBucket: key('MINIO_BUCKET', text.default('hearth')),
    /** The region signed for. */
    minioLocation: key('MINIO_LOCATION', text.default('us-east-1')),
    /** https to the endpoint. */
    minioUseSsl: key('MINIO_USE_SSL', setting.flag.default(false)),
    /** A prefix of every key; each kind adds its own (`attachments/`, `packages/`, `avatars/`). */
    minioBasePath: key('MINIO_BASE_PATH', text.default('')),
    /** Downloads answer a redirect to a presigned URL of the object store instead of passing the bytes through. */
    serveDirect: key('SERVE_DIRECT', setting.flag.default(false)),
  }),
  /** Uploaded avatars of users and organizations. */
  avatar: section({
    /** Where avatars are stored: see [storage]. */
    ...storageOverrides(),
  }),
  'repository.issue': section({
    /** Pinned issues per repository. */
    maxPinned: key('MAX_PINNED', setting.integer.pipe(z.number().min(0)).default(3)),
  }),
  ui: section({
    /** The reactions users may give. */
    reactions: key('REACTIONS', setting.list.default(reactions.split(','))),
  }),
  webhook: section({
    /** Where webhooks may be delivered: external, private, loopback, *, host names, CIDRs; checked on the address connected to. */
    allowedHostList: key('ALLOWED_HOST_LIST', text.default('external')),
    /** Seconds a delivery may take. */
    deliverTimeoutSeconds: key('DELIVER_TIMEOUT', setting.seconds.default(5)),
    /** Deliver to HTTPS targets without checking their certificates. */
    skipTlsVerify: key('SKIP_TLS_VERIFY', setting.flag.default(false)),
    /** A proxy for deliveries to hosts matching PROXY_HOSTS. */
    proxyUrl: key('PROXY_URL', setting.url.optional()),
    /** Host globs delivered through PROXY_URL. */
    proxyHosts: key('PROXY_HOSTS', setting.list.default([])),
  }),
  migrations: section({
    /** Migrations and mirrors may reach private and loopback addresses. */
    allowLocalNetworks: key('ALLOW_LOCALNETWORKS', setting.flag.default(false)),
    /** Migration and mirror hosts allowed (globs such as `*.example.com`, or CIDR ranges); empty allows all. */
    allowedDomains: key('ALLOWED_DOMAINS', setting.list.default([])),
    /** Migration and mirror hosts refused (globs or CIDR ranges). */
    blockedDomains: key('BLOCKED_DOMAINS', setting.list.default([])),
  }),
  'git.timeout': section({
    /** Seconds each git command of a migration (clone, wiki, remote HEAD) may take, and the reading of the source's API; then it is killed (with every process it started) and the migration fails with the reason. */
    migrate: key('MIGRATE', setting.seconds.pipe(z.number().min(1)).default(600)),
    /** Seconds a pull mirror's fetch or a push mirror's push may take; then it is killed (with every process it started) and the reason recorded as the mirror's last error. */
    mirror: key('MIRROR', setting.seconds.pipe(z.number().min(1)).default(300)),
  }),
  mirror: section({
    /** The shortest interval a mirror may have. */
    minInterval: key('MIN_INTERVAL', setting.duration.default('10m')),
    /** A new mirror's interval. */
    defaultInterval: key('DEFAULT_INTERVAL', setting.duration.default('8h')),
  }),
  mailer: section({
    /** Send mail (issue notifications, welcome mails) through SMTP_ADDR:SMTP_PORT. */
    enabled: key('ENABLED', setting.flag.default(false)),
    /** The SMTP server's host. */
    smtpAddr: key('SMTP_ADDR', text.optional()),
    /** The SMTP server's port. */
    smtpPort: key('SMTP_PORT', setting.port.optional()),
    /** The sender; unset: `Hearth <hearth@HOST>`. */
    from: key('FROM', text.optional()),
  }),
  packages: section({
    /** The package registries; false serves neither them nor `/api/v1/packages`. */
    enabled: key('ENABLED', setting.flag.default(true)),
    /** Package versions per owner; -1 for no limit. */
    limitTotalOwnerCount: key('LIMIT_TOTAL_OWNER_COUNT', setting.integer.pipe(z.number().min(-1)).default(-1)),
    /** Bytes of package files per owner; a publish past it is a 413. */
    limitTotalOwnerSize: key('LIMIT_TOTAL_OWNER_SIZE', setting.bytes.default(-1)),
    ...packageSizeLimits,
    /** Where package files are stored: see [storage]. */
    ...storageOverrides(),
  }),
  metrics: section({
    /** Serve Prometheus metrics at /metrics on the web process. */
    enabled: key('ENABLED', setting.flag.default(false)),
    /** A bearer token /metrics asks for (401 without it); unset: no token asked. */
    token: key('TOKEN', text.optional()),
    /** A worker process serves its own process metrics at http://host:WORKER_PORT/metrics; unset: none. */
    workerPort: key('WORKER_PORT', setting.port.optional()),
    /** The ssh process serves its own metrics (git transfers over SSH) at http://host:SSH_PORT/metrics; unset: none. */
    sshPort: key('SSH_PORT', setting.port.optional()),
    /** gitea_issues_by_label, one series per label name (as Gitea, off by default). */
    enabledIssueByLabel: key('ENABLED_ISSUE_BY_LABEL', setting.flag.default(false)),
    /** gitea_issues_by_repository, one series per repository (as Gitea, off by default). */
    enabledIssueByRepository: key('ENABLED_ISSUE_BY_REPOSITORY', setting.flag.default(false)),
  }),
  /** Gitea's update_mirrors: queues the pull and push mirrors that are due. */
  'cron.update_mirrors': cronSection(true, '* * * * *', {}),
  /** Gitea's start_schedule_tasks: queues the actions schedule plans that are due (with [actions] ENABLED). */
  'cron.start_schedule_tasks': cronSection(true, '* * * * *', {}),
  /** Hearth's queue maintenance: expires, archives and drops jobs as pg-boss does, then vacuums every queue's table. */
  'cron.queue_maintenance': cronSection(true, '7 * * * *', {}),
  /** Gitea's cleanup_packages: stale container uploads and package blobs no file names any more. */
  'cron.cleanup_packages': cronSection(true, '17 * * * *', {
    /** Unreferenced package blobs older than this are removed. */
    olderThan: key('OLDER_THAN', setting.duration.default('24h')),
  }),
  /** Gitea's cleanup_hook_task_table: delivered webhook tasks. */
  'cron.cleanup_hook_task_table': cronSection(true, '@midnight', {
    /** OlderThan (delivered tasks older than OLDER_THAN) or PerWebhook (all but each hook's NUMBER_TO_KEEP newest). */
    cleanupType: key('CLEANUP_TYPE', text.pipe(z.enum(['OlderThan', 'PerWebhook'])).default('OlderThan')),
    /** With OlderThan: delivered tasks older than this are removed. */
    olderThan: key('OLDER_THAN', setting.duration.default('168h')),
    /** With PerWebhook: the delivered tasks each hook keeps. */
    numberToKeep: key('NUMBER_TO_KEEP', setting.integer.pipe(z.number().min(0)).default(10)),
  }),
  /** Hearth's: attachments that no issue, comment or release names, older than OLDER_THAN. */
  'cron.delete_unlinked_attachments': cronSection(true, '@midnight', {
    olderThan: key('OLDER_THAN', setting.duration.default('24h')),
  }),
  /** Hearth's: notifications read more than OLDER_THAN ago (off by default, as Gitea's delete_old_actions). */
  'cron.delete_old_notifications': cronSection(false, '@midnight', {
    olderThan: key('OLDER_THAN', setting.duration.default('8760h')),
  }),
  log: section({
    /** fatal, error, warn, info (default), debug, trace or silent. */
    level: key('LEVEL', logLevel.optional()),
  }),
};

type SectionName = keyof typeof sections;
type SectionConfig = { [S in SectionName]: z.output<(typeof sections)[S]['schema']> };

/** What the environment itself carries (not INI settings). */
export const environment = z.object({
  /** The web process's HTTP port. */
  PORT: setting.port.default(3000),
  /** The public address links are made with; over `[server] ROOT_URL`, else http://localhost:PORT/. */
  HEARTH_ROOT_URL: setting.url.optional(),
  /** Repositories, blobs, app.ini and the embedded database live here. */
  HEARTH_DATA_DIR: text.min(1).default('./data'),
  /** An external PostgreSQL; unset, Hearth runs an embedded one under $HEARTH_DATA_DIR/db. */
  DATABASE_URL: text.optional(),
  /** With the password and e-mail: an administrator created at the first start. */
  HEARTH_ADMIN_USERNAME: text.optional(),
  /** The boot administrator's password, checked as the API checks one. */
  HEARTH_ADMIN_PASSWORD: z.string().optional(),
  /** The boot administrator's e-mail address. */
  HEARTH_ADMIN_EMAIL: text.optional(),
  /** The actors a worker process runs, comma-separated; unset or `all` for every one. */
  HEARTH_ACTORS: text.optional(),
  /** fatal, error, warn, info, debug, trace or silent; `[log] LEVEL` wins. */
  LOG_LEVEL: logLevel.optional(),
});

export interface Config extends Omit<SectionConfig, 'server' | 'log' | 'default' | 'packages' | 'repository.issue' | 'git.timeout' | 'storage' | 'avatar'> {
  /** Where each kind of blob is stored: [storage] with the overrides of [attachment], [packages] and [avatar]. */
  blobStorage: Record<BlobKind, StorageTarget>;
  /** `[repository.issue]`. */
  repositoryIssue: SectionConfig['repository.issue'];
  /** `[git.timeout]`, in seconds. */
  gitTimeout: SectionConfig['git.timeout'];
  port: number;
  rootUrl: string;
  /** Gitea's top-level APP_NAME (`HEARTH__DEFAULT__APP_NAME`): the instance's name on its home page. */
  appName: string;
  packages: {
    enabled: boolean;
    limitTotalOwnerCount: number;
    /** Bytes; -1 for no limit. */
    limitTotalOwnerSize: number;
    /** LIMIT_SIZE_<TYPE> in bytes by lower-case package type; -1 for no limit. */
    limitSize: Record<string, number>;
  };
  /** `[server]`'s SSH settings: the built-in server and what ssh_url advertises. */
  ssh: SshConfig;
  /** `[server] DRAIN_SECONDS`: how long a stopping web process serves on while its health check says it is stopping. */
  drainSeconds: number;
  dataDir: string;
  databaseUrl: string | undefined;
  bootAdmin: { username: string; password: string; email: string } | undefined;
  log: { level: string };
  /** HEARTH_ACTORS: the actors a worker process runs, comma-separated; unset or `all` for every one. */
  worker: { actors: string | undefined };
}

export interface SshConfig {
  /** DISABLE_SSH: no server and an empty ssh_url. */
  disabled: boolean;
  /** START_SSH_SERVER and not disabled: the ssh process listens. */
  start: boolean;
  /** Advertised in ssh_url. */
  port: number;
  domain: string;
  user: string;
  listenPort: number;
  listenHost: string;
  /** Absolute paths. */
  hostKeys: string[];
  ciphers: string[];
  keyExchanges: string[];
  macs: string[];
  loginGraceSeconds: number;
  idleTimeoutSeconds: number;
  maxSessions: number;
  maxSessionsPerKey: number;
}

/** A setting Hearth cannot start with; the message names the setting and where it was read. */
export class ConfigError extends Error {}


/** Where a raw value came from, for messages: `app.ini` or the environment variable. */
interface Raw {
  value: string;
  source: string;
}
type RawSections = Record<string, Record<string, Raw>>;

export interface ConfigReading {
  config: Config;
  /** Unknown sections and keys, each a sentence naming it (with a hint for Gitea's names). */
  warnings: string[];
}

/** Reads the INI file (HEARTH_CONFIG or $HEARTH_DATA_DIR/app.ini) and HEARTH__SECTION__KEY overrides; throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return readConfig(env).config;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigReading {
  const problems: string[] = [];
  const warnings: string[] = [];
  const envValues = Object.fromEntries(Object.entries(env).filter(([name, value]) => name in environment.shape && value !== ''));
  const parsedEnv = environment.safeParse(envValues);
  if (!parsedEnv.success) {
    for (const issue of parsedEnv.error.issues) {
      const name = String(issue.path[0]);
      problems.push(`${name}=${JSON.stringify(env[name])}: ${issue.message}`);
    }
    throw new ConfigError(problems.join('\n'));
  }
  const e = parsedEnv.data;
  const dataDir = path.resolve(e.HEARTH_DATA_DIR);
  const raw = readSections(env, dataDir);
  const values: Partial<SectionConfig> = {};
  for (const [name, entries] of Object.entries(raw)) {
    if (name === '') {
      for (const [iniKey, value] of Object.entries(entries)) warnings.push(`unknown key ${iniKey} outside any section (${value.source}) is ignored${hintFor(name, iniKey)}`);
      continue;
    }
    if (!(name in sections)) {
      warnings.push(`unknown section [${name}] (${describeSources(entries)}) is ignored${hintFor(name)}`);
      continue;
    }
    const known = new Set(Object.values(sections[name as SectionName].keys).map((entry) => entry.ini));
    for (const [iniKey, value] of Object.entries(entries)) {
      if (!known.has(iniKey)) warnings.push(`unknown key [${name}] ${iniKey} (${value.source}) is ignored${hintFor(name, iniKey, [...known])}`);
    }
  }
  for (const name of Object.keys(sections) as SectionName[]) {
    const entries = raw[name] ?? {};
    const input = Object.fromEntries(Object.entries(entries).map(([iniKey, value]) => [iniKey, value.value]));
    const parsed = sections[name].schema.safeParse(input);
    if (parsed.success) {
      (values as Record<string, unknown>)[name] = parsed.data;
      continue;
    }
    for (const issue of parsed.error.issues) {
      const iniKey = String(issue.path[0]);
      const at = entries[iniKey];
      problems.push(`[${name}] ${iniKey} = ${JSON.stringify(at?.value)} (${at?.source}): ${issue.message}`);
    }
  }
  const bootAdmin = readBootAdmin(e, problems);
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const s = values as SectionConfig;
  let rootUrl = e.HEARTH_ROOT_URL ?? s.server.rootUrl ?? `http://localhost:${e.PORT}/`;
  if (!rootUrl.endsWith('/')) rootUrl += '/';
  const { server, log, default: top, packages, 'repository.issue': repositoryIssue, 'git.timeout': gitTimeout, storage, avatar, ...rest } = s;
  const blobStorage = resolveStorage(storage as Required<StorageKeys>, { attachments: rest.attachment, packages, avatars: avatar });
  const limitSize = Object.fromEntries(packageTypes.map((type) => [type, packages[`limitSize_${type}`]]));
  return {
    config: {
      ...rest,
      port: e.PORT,
      rootUrl,
      appName: top.appName,
      repositoryIssue,
      gitTimeout,
      blobStorage,
      drainSeconds: server.drainSeconds,
      packages: { enabled: packages.enabled, limitTotalOwnerCount: packages.limitTotalOwnerCount, limitTotalOwnerSize: packages.limitTotalOwnerSize, limitSize },
      ssh: {
        disabled: server.disableSsh,
        start: server.startSshServer && !server.disableSsh,
        port: server.sshPort ?? server.sshListenPort,
        domain: server.sshDomain ?? new URL(rootUrl).hostname,
        user: server.builtinSshServerUser,
        listenPort: server.sshListenPort,
        listenHost: server.sshListenHost,
        hostKeys: server.sshServerHostKeys.map((file) => path.resolve(dataDir, file)),
        ciphers: server.sshServerCiphers,
        keyExchanges: server.sshServerKeyExchanges,
        macs: server.sshServerMacs,
        loginGraceSeconds: server.sshLoginGraceTime,
        idleTimeoutSeconds: server.sshIdleTimeout,
        maxSessions: server.sshMaxSessions,
        maxSessionsPerKey: server.sshMaxSessionsPerKey,
      },
      dataDir,
      databaseUrl: e.DATABASE_URL || undefined,
      bootAdmin,
      log: { level: log.level ?? e.LOG_LEVEL ?? 'info' },
      worker: { actors: e.HEARTH_ACTORS || undefined },
    },
    warnings,
  };
}

/** HEARTH_ADMIN_*: all three or none, and values createUser would accept (checked before anything starts). */
function readBootAdmin(e: z.output<typeof environment>, problems: string[]): Config['bootAdmin'] {
  const given = { HEARTH_ADMIN_USERNAME: e.HEARTH_ADMIN_USERNAME, HEARTH_ADMIN_PASSWORD: e.HEARTH_ADMIN_PASSWORD, HEARTH_ADMIN_EMAIL: e.HEARTH_ADMIN_EMAIL };
  const missing = Object.entries(given).filter(([, value]) => !value).map(([name]) => name);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    problems.push(`the boot administrator needs HEARTH_ADMIN_USERNAME, HEARTH_ADMIN_PASSWORD and HEARTH_ADMIN_EMAIL; ${missing.join(', ')} not set`);
    return undefined;
  }
  const admin = { username: e.HEARTH_ADMIN_USERNAME!, password: e.HEARTH_ADMIN_PASSWORD!, email: e.HEARTH_ADMIN_EMAIL! };
  const checks: [string, () => void][] = [
    [`HEARTH_ADMIN_USERNAME=${admin.username}`, () => assertUsableName(admin.username)],
    ['HEARTH_ADMIN_PASSWORD', () => assertPassword(admin.password)],
    [`HEARTH_ADMIN_EMAIL=${admin.email}`, () => assertValidEmail(admin.email)],
  ];
  for (const [label, check] of checks) {
    try {
      check();
    } catch (error) {
      problems.push(`${label}: the boot administrator is refused: ${(error as Error).message}`);
    }
  }
  return admin;
}

function describeSources(entries: Record<string, Raw>): string {
  return [...new Set(Object.values(entries).map((value) => value.source))].join(', ');
}

function hintFor(sectionName: string, iniKey?: string, known: string[] = []): string {
  const hint = giteaHint(sectionName, iniKey) ?? (iniKey ? nearest(iniKey, known) : undefined);
  return hint ? `; ${hint}` : '';
}

function nearest(name: string, candidates: string[]): string | undefined {
  const best = candidates.map((candidate) => ({ candidate, distance: editDistance(name, candidate) })).sort((a, b) => a.distance - b.distance)[0];
  return best && best.distance <= 2 ? `did you mean ${best.candidate}?` : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function readSections(env: NodeJS.ProcessEnv, dataDir: string): RawSections {
  const file = env.HEARTH_CONFIG ?? path.join(dataDir, 'app.ini');
  const result: RawSections = {};
  const put = (sectionName: string, iniKey: string, value: string, source: string): void => {
    (result[sectionName.toLowerCase()] ??= {})[iniKey.toUpperCase()] = { value, source };
  };
  // ini nests dotted section names ([repository.upload]); each level is a section of its own here
  const walk = (sectionName: string, body: Record<string, unknown>): void => {
    for (const [name, value] of Object.entries(body)) {
      if (value && typeof value === 'object') walk(sectionName ? `${sectionName}.${name}` : name, value as Record<string, unknown>);
      // a key before any section header (Gitea's APP_NAME) belongs to [DEFAULT], as Gitea's environment-to-ini names it
      else if (value !== '' && value !== null && value !== undefined) put(sectionName || 'default', name, String(value), file);
    }
  };
  if (existsSync(file)) {
    walk('', parseIni(readFileSync(file, 'utf8')) as Record<string, unknown>);
  } else if (env.HEARTH_CONFIG) {
    throw new ConfigError(`HEARTH_CONFIG=${file}: no such file`);
  }
  for (const [name, value] of Object.entries(env)) {
    const match = /^HEARTH__([^_]+(?:_[^_]+)*)__(.+)$/.exec(name);
    // Gitea's environment-to-ini spelling of a dot in a section name: HEARTH__git_0X2E_timeout__MIRROR
    if (match && value !== undefined && value !== '') put(match[1].replace(/_0x2e_/gi, '.'), match[2], value, name);
  }
  return result;
}
