import { batched, batchedPerDb } from '../../batch.js';
import { decryptSecret, encryptSecret } from '../../crypto.js';
import type { Queryable, Tx } from '../../data-source.js';
import { invalid, notFound } from '../../errors.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { chooseEvents, isValidBranchFilter, type HookEventType } from './hook-events.js';

/** The hook types Hearth delivers, each with its own payload format (Gitea's webhook_module types). */
export const hookTypes = ['gitea', 'gogs', 'slack', 'discord', 'msteams', 'matrix', 'dingtalk', 'telegram', 'feishu', 'wechatwork', 'packagist'] as const;
export type HookType = (typeof hookTypes)[number];

/** Where a hook hangs: a repository, a user or organization (fires for its repositories), or the whole instance. */
export type HookLevel = { repoId: number } | { ownerId: number } | { system: true };

/** A row of `webhook`; the secret and the authorization header stay sealed until a delivery needs them. */
export interface WebhookRow {
  id: number;
  repo_id: number | null;
  owner_id: number | null;
  is_system: boolean;
  type: HookType;
  url: string;
  http_method: string;
  content_type: 'json' | 'form';
  secret_sealed: string;
  authorization_sealed: string;
  meta: Record<string, string>;
  push_only: boolean;
  send_everything: boolean;
  choose_events: boolean;
  events: HookEventType[];
  branch_filter: string;
  is_active: boolean;
  last_status: number;
  created: Date;
  updated: Date;
}

/** CreateHookOption. */
export interface NewHook {
  type: string;
  config: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  active?: boolean;
  authorization_header?: string;
}

/** EditHookOption. */
export interface HookEdit {
  config?: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  active?: boolean;
  authorization_header?: string;
}

export const hookColumns = `id::int, repo_id::int, owner_id::int, is_system, type, url, http_method, content_type, secret_sealed, authorization_sealed,
  meta, push_only, send_everything, choose_events, events, branch_filter, is_active, last_status, created, updated`;

function levelWhere(level: HookLevel, first: number): { sql: string; params: unknown[] } {
  if ('repoId' in level) return { sql: `repo_id = $${first}`, params: [level.repoId] };
  if ('ownerId' in level) return { sql: `owner_id = $${first}`, params: [level.ownerId] };
  return { sql: 'is_system', params: [] };
}

export async function listHooks(db: Queryable, level: HookLevel, page?: PageWindow): Promise<{ rows: WebhookRow[]; total: number }> {
  const where = levelWhere(level, 1);
  return selectPage<WebhookRow>(db, { select: hookColumns, from: `webhook WHERE ${where.sql}`, params: where.params, orderBy: 'id', page });
}

export async function getHook(db: Queryable, level: HookLevel, id: number): Promise<WebhookRow> {
  const where = levelWhere(level, 2);
  const [row] = await db.query<WebhookRow>(`SELECT ${hookColumns} FROM webhook WHERE id = $1 AND ${where.sql}`, [id, ...where.params]);
  if (!row) throw notFound('webhook');
  return row;
}

/**
 * The active hooks that receive an event of a repository (its own, its owner's and the system's), or of an owner when
 * `repo` is null. Calls made together (a worker's notify jobs under load) share one statement.
 */
export function activeHooksFor(db: Queryable, repo: { id: number; owner_id: number } | null, ownerId: number | null): Promise<WebhookRow[]> {
  return hooksOf(db, { repoId: repo?.id ?? null, ownerId: repo?.owner_id ?? ownerId });
}

const hooksOf = batchedPerDb((db: Queryable) => batched(async (levels: Array<{ repoId: number | null; ownerId: number | null }>) => {
  const rows = await db.query<WebhookRow & { for_call: number }>(
    `SELECT k.n::int AS for_call, ${hookColumns}
       FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS k(for_repo, for_owner, n)
       JOIN webhook ON is_active AND (is_system OR repo_id = k.for_repo OR owner_id = k.for_owner)
      ORDER BY k.n, id`,
    [levels.map((level) => level.repoId), levels.map((level) => level.ownerId)],
    // PostgreSQL would plan it anew for every event: its plan does not depend on the ids
    { planOnce: true },
  );
  const hooks = levels.map((): WebhookRow[] => []);
  for (const { for_call: call, ...hook } of rows) hooks[call - 1].push(hook);
  return hooks;
}));

export function hookSecret(secretKey: string, hook: Pick<WebhookRow, 'secret_sealed'>): string {
  return hook.secret_sealed ? decryptSecret(secretKey, hook.secret_sealed) : '';
}

export function hookAuthorization(secretKey: string, hook: Pick<WebhookRow, 'authorization_sealed'>): string {
  return hook.authorization_sealed ? decryptSecret(secretKey, hook.authorization_sealed) : '';
}

const seal = (secretKey: string, plain: string | undefined): string => (plain ? encryptSecret(secretKey, plain) : '');

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('Invalid url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('Invalid url');
}

function checkContentType(contentType: string): asserts contentType is 'json' | 'form' {
  if (contentType !== 'json' && contentType !== 'form') throw invalid('Invalid content type');
}

function checkedEvents(names: string[] | undefined): HookEventType[] {
  const chosen = chooseEvents(names ?? []);
  if ('unknown' in chosen) throw invalid(`Invalid hook event: ${chosen.unknown}`);
  return chosen.events;
}

function checkBranchFilter(filter: string | undefined): string {
  const value = filter ?? '';
  if (!isValidBranchFilter(value)) throw invalid(`Invalid branch filter: ${value}`);
  return value;
}

/** Slack hooks carry their channel and display settings (Gitea's SlackMeta); the channel is required, as in Gitea's API. */
function slackMeta(config: Record<string, string>, previous: Record<string, string> = {}): Record<string, string> {
  const channel = (config.channel ?? previous.channel ?? '').trim();
  if (!channel) throw invalid('Missing config option: channel');
  if (channel === '#' || channel === '@' || /\s/.test(channel)) throw invalid('Invalid slack channel name');
  return {
    channel,
    username: config.username ?? previous.username ?? '',
    icon_url: config.icon_url ?? previous.icon_url ?? '',
    color: config.color ?? previous.color ?? '',
  };
}

function checkedOptionalUrl(value: string | undefined, name: string): string {
  if (!value) return '';
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value;
  } catch {
    // reported below
  }
  throw invalid(`Invalid config option: ${name}`);
}

/**
 * The settings a hook type keeps besides its URL (Gitea's *Meta of each type). Gitea's API reads only Slack's;
 * Hearth also takes the fields Gitea's web forms set for Discord, Matrix and Packagist from `config`, since without
 * them those types have nothing to send (Packagist's API token belongs in the hook URL, as Gitea's form puts it).
 */
function metaFor(type: HookType, config: Record<string, string>, previous: Record<string, string> = {}): Record<string, string> {
  const pick = (name: string): string => (config[name] ?? previous[name] ?? '').trim();
  switch (type) {
    case 'slack':
      return slackMeta(config, previous);
    case 'discord':
      return { username: pick('username'), icon_url: checkedOptionalUrl(pick('icon_url'), 'icon_url') };
    case 'matrix': {
      const messageType = pick('message_type') || '1';
      if (messageType !== '1' && messageType !== '2') throw invalid('Invalid config option: message_type (1 for m.notice, 2 for m.text)');
      return { homeserver_url: checkedOptionalUrl(pick('homeserver_url'), 'homeserver_url'), room_id: pick('room_id'), message_type: messageType };
    }
    case 'packagist': {
      const packageUrl = pick('package_url');
      if (!packageUrl) throw invalid('Missing config option: package_url');
      return { username: pick('username'), package_url: checkedOptionalUrl(packageUrl, 'package_url') };
    }
    default:
      return {};
  }
}

const isHookType = (type: string): type is HookType => (hookTypes as readonly string[]).includes(type);

/** Gitea's addHook with its checks (422 for a bad type, URL, content type, event or branch filter); nothing is stored on a refusal. */
export async function createHook(tx: Tx, secretKey: string, level: HookLevel, input: NewHook): Promise<WebhookRow> {
  if (!isHookType(input.type)) throw invalid(`Invalid hook type: ${input.type}`);
  for (const name of ['url', 'content_type']) if (!(name in input.config)) throw invalid(`Missing config option: ${name}`);
  checkUrl(input.config.url);
  checkContentType(input.config.content_type);
  const events = checkedEvents(input.events);
  const branchFilter = checkBranchFilter(input.branch_filter);
  const meta = metaFor(input.type, input.config);
  const [row] = await tx.query<WebhookRow>(
    `INSERT INTO webhook (repo_id, owner_id, is_system, type, url, content_type, secret_sealed, authorization_sealed, meta,
       choose_events, events, branch_filter, is_active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $11, $12) RETURNING ${hookColumns}`,
    [
      'repoId' in level ? level.repoId : null, 'ownerId' in level ? level.ownerId : null, 'system' in level,
      input.type, input.config.url, input.config.content_type, seal(secretKey, input.config.secret),
      seal(secretKey, input.authorization_header), JSON.stringify(meta), events, branchFilter, input.active ?? false,
    ],
  );
  return row;
}

/** Gitea's editHook: config keys given replace theirs, events are chosen anew (push when none), the rest as given. */
export async function editHook(tx: Tx, secretKey: string, hook: WebhookRow, edit: HookEdit): Promise<WebhookRow> {
  const config = edit.config ?? {};
  const url = config.url ?? hook.url;
  checkUrl(url);
  const contentType = config.content_type ?? hook.content_type;
  checkContentType(contentType);
  const events = checkedEvents(edit.events);
  const branchFilter = checkBranchFilter(edit.branch_filter);
  // Gitea replaces Slack's settings only when a channel is given
  const meta = hook.type === 'slack' && config.channel === undefined ? hook.meta : metaFor(hook.type, config, hook.meta);
  const secret = 'secret' in config ? seal(secretKey, config.secret) : hook.secret_sealed;
  const authorization = edit.authorization_header !== undefined ? seal(secretKey, edit.authorization_header) : hook.authorization_sealed;
  const [row] = await tx.query<WebhookRow>(
    `UPDATE webhook SET url = $2, content_type = $3, secret_sealed = $4, authorization_sealed = $5, meta = $6, push_only = false,
       send_everything = false, choose_events = true, events = $7, branch_filter = $8, is_active = $9, updated = now()
     WHERE id = $1 RETURNING ${hookColumns}`,
    [hook.id, url, contentType, secret, authorization, JSON.stringify(meta), events, branchFilter, edit.active ?? hook.is_active],
  );
  return row;
}

export async function deleteHook(tx: Tx, hook: WebhookRow): Promise<void> {
  await tx.query('DELETE FROM webhook WHERE id = $1', [hook.id]);
}
