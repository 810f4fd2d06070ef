import { createHash } from 'node:crypto';
import { visibilities, type UserRow } from '../../db/models/users/user-row.js';
import type { EmailRow } from '../../db/models/users/emails.js';
import type { TokenRow } from '../../db/models/users/tokens.js';
import { scopeList } from '../../db/scopes.js';
import { iso } from './time.js';
import type { SshUrlSettings } from '../../db/models/repos/ssh-url.js';

/** The User definition of the Gitea 1.22 API description. */
export interface ApiUser {
  id: number;
  login: string;
  /** Gitea sends the login again under this name for older clients, although its API description leaves it out. */
  username: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: string;
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
}

export interface RenderContext {
  rootUrl: string;
  /** What ssh_url is made of (`[server]` SSH settings). */
  ssh: SshUrlSettings;
}

/** An uploaded avatar is served under its blob key; anyone else gets the image generated for the hash of their address. */
export function avatarUrl(user: Pick<UserRow, 'email' | 'avatar'>, rootUrl: string): string {
  if (user.avatar.startsWith('avatar-')) return `${rootUrl}avatars/${encodeURIComponent(user.avatar)}`;
  const hash = createHash('md5').update(user.avatar || user.email.trim().toLowerCase()).digest('hex');
  return `${rootUrl}avatars/${hash}`;
}

const hosts = new Map<string, string>();

/** The host of the instance's root URL, which every user's placeholder address names: parsed once per URL. */
function hostOf(rootUrl: string): string {
  let host = hosts.get(rootUrl);
  if (host === undefined) {
    host = new URL(rootUrl).hostname;
    if (hosts.size < 64) hosts.set(rootUrl, host);
  }
  return host;
}

const publicUsers = new WeakMap<UserRow, { rootUrl: string; user: ApiUser }>();

/**
 * renderUser for nobody in particular (issue and comment authors, assignees). A list shows the same few users on
 * every item, so each loaded row is rendered once; the answer is frozen, as it is shared.
 */
export function renderPublicUser(user: UserRow, ctx: RenderContext): ApiUser {
  const known = publicUsers.get(user);
  if (known?.rootUrl === ctx.rootUrl) return known.user;
  const rendered = Object.freeze(renderUser(user, null, ctx));
  publicUsers.set(user, { rootUrl: ctx.rootUrl, user: rendered });
  return rendered;
}

/**
 * Shapes a user for `viewer`, as Gitea does: anonymous callers never see an address, a hidden
 * address shows only to the user and administrators, and account details only to them too.
 */
export function renderUser(user: UserRow, viewer: UserRow | null, { rootUrl }: RenderContext): ApiUser {
  const authed = viewer !== null && (viewer.is_admin || viewer.id === user.id);
  const placeholder = `${user.lower_name}@noreply.${hostOf(rootUrl)}`;
  return {
    id: user.id,
    login: user.name,
    username: user.name,
    login_name: authed ? user.login_name : '',
    source_id: authed ? user.login_source : 0,
    full_name: user.full_name,
    email: viewer && (!user.keep_email_private || authed) ? user.email : placeholder,
    avatar_url: avatarUrl(user, rootUrl),
    html_url: `${rootUrl}${encodeURIComponent(user.name)}`,
    language: authed ? user.language : '',
    is_admin: authed ? user.is_admin : false,
    last_login: authed ? iso(user.last_login) : iso(null),
    created: iso(user.created),
    restricted: user.restricted,
    active: authed ? user.is_active : false,
    prohibit_login: authed ? user.prohibit_login : false,
    location: user.location,
    website: user.website,
    description: user.description,
    visibility: visibilities[user.visibility],
    followers_count: user.num_followers,
    following_count: user.num_following,
    starred_repos_count: user.num_stars,
  };
}

export interface ApiUserSettings {
  full_name: string;
  website: string;
  description: string;
  location: string;
  language: string;
  theme: string;
  diff_view_style: string;
  hide_email: boolean;
  hide_activity: boolean;
}

export function renderUserSettings(user: UserRow): ApiUserSettings {
  return {
    full_name: user.full_name,
    website: user.website,
    description: user.description,
    location: user.location,
    language: user.language,
    theme: user.theme || 'gitea-auto',
    diff_view_style: user.diff_view_style,
    hide_email: user.keep_email_private,
    hide_activity: user.hide_activity,
  };
}

export interface ApiEmail {
  email: string;
  verified: boolean;
  primary: boolean;
  user_id: number;
  username: string;
}

export function renderEmail(email: EmailRow): ApiEmail {
  return { email: email.email, verified: email.is_activated, primary: email.is_primary, user_id: email.uid, username: email.username };
}

export interface ApiAccessToken {
  id: number;
  name: string;
  sha1: string;
  token_last_eight: string;
  scopes: string[];
}

/** The secret (`sha1`) is only ever present in the answer to creation. */
export function renderAccessToken(token: TokenRow, secret = ''): ApiAccessToken {
  return { id: token.id, name: token.name, sha1: secret, token_last_eight: token.token_last_eight, scopes: scopeList(token.scope) };
}

/** Go's url.PathEscape of one segment: `(`, `)` and the like escaped too. */
const pathEscape = (segment: string): string =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Gitea's stand-in for a deleted account. */
export const renderGhost = (ctx: RenderContext): ApiUser => renderStandIn('Ghost', ctx);

/**
 * Gitea's stand-ins for people with no account here (NewGhostUser, NewReplaceUser): id -1, the given name, the
 * `name@noreply.HOST` address Gitea gives them and the default avatar.
 */
export function renderStandIn(name: string, { rootUrl }: RenderContext): ApiUser {
  return {
    id: -1, login: name, username: name, login_name: '', source_id: 0, full_name: '', email: `${name.toLowerCase()}@noreply.${hostOf(rootUrl)}`,
    avatar_url: `${rootUrl}assets/img/avatar_default.png`, html_url: `${rootUrl}${pathEscape(name)}`, language: '', is_admin: false,
    last_login: iso(null), created: iso(null), restricted: false, active: false, prohibit_login: false, location: '',
    website: '', description: '', visibility: 'public', followers_count: 0, following_count: 0, starred_repos_count: 0,
  };
}
