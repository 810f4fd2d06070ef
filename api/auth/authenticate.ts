import { BlockList, isIPv4 } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { forbidden, unauthorized } from '../../db/errors.js';
import { authenticateTaskToken } from '../../db/models/actions/bot.js';
import { normalizeScopes } from '../../db/scopes.js';
import { authenticateToken } from '../../db/models/users/tokens.js';
import { accessScopeOfGrant, findGrantWithUser } from '../../db/models/users/oauth2-grants.js';
import { issuerOf, looksLikeJwt, verifyToken } from '../../db/oauth2/tokens.js';
import { checkTotp } from '../../db/models/users/two-factor.js';
import { findUserByName } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { Deps } from '../deps.js';
import { anonymous, type Caller } from './caller.js';
import { refuseProhibited } from './sign-in.js';
import { signInWithPassword } from './password-sign-in.js';

export const queryTokenWarning =
  '299 - "token and access_token API authentication is deprecated; send the token in the Authorization header instead"';

const badCredentials = 'invalid username, password or token';

/**
 * Resolves the caller, in Gitea's order: reverse-proxy header (when enabled and from a trusted peer),
 * Authorization token/Bearer, HTTP basic (password plus TOTP, or a token as password), then the
 * deprecated query parameters. Cookies are never looked at.
 */
export function authenticate(deps: Deps, surface: 'api' | 'git' = 'api') {
  const trusted = trustedProxies(deps.config.security.reverseProxyTrustedProxies);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const caller = await resolveCaller(deps, trusted, req, res);
      if (caller.user?.must_change_password) refuseUntilPasswordChanged(deps, surface);
      res.locals.caller = caller;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Gitea's verifyAuthWithOptions: a user who must change their password is refused everywhere until they do (git gets a 401). */
function refuseUntilPasswordChanged(deps: Deps, surface: 'api' | 'git'): never {
  const message = `You must change your password. Change it at: ${deps.config.rootUrl}user/change_password`;
  throw surface === 'git' ? unauthorized(message) : forbidden(message);
}

async function resolveCaller(deps: Deps, trusted: BlockList, req: Request, res: Response): Promise<Caller> {
  const { config } = deps;
  const proxyHeader = req.get(config.security.reverseProxyAuthenticationUser);
  if (proxyHeader && config.service.enableReverseProxyAuthenticationApi && isTrusted(trusted, req.socket.remoteAddress)) {
    const user = await findUserByName(deps.db, proxyHeader.trim());
    if (!user) throw unauthorized(badCredentials);
    return signedIn({ user, method: 'proxy', scope: 'all', tokenId: null });
  }
  const authorization = req.get('authorization');
  if (authorization) {
    const [kind, ...rest] = authorization.trim().split(/\s+/);
    const value = rest.join(' ');
    if (/^(token|bearer)$/i.test(kind)) return byToken(deps, value, 'token');
    if (/^basic$/i.test(kind)) return byBasic(deps, value, req.get('x-gitea-otp'));
    throw unauthorized(`unsupported authorization scheme: ${kind}`);
  }
  const queryToken = firstString(req.query.token) ?? firstString(req.query.access_token);
  if (queryToken !== undefined) {
    if (config.security.disableQueryAuthToken) {
      throw unauthorized('token and access_token query parameters are disabled; send the token in the Authorization header');
    }
    res.setHeader('Warning', queryTokenWarning);
    return byToken(deps, queryToken, 'query');
  }
  return anonymous;
}

/**
 * The caller an `Authorization: Basic` header names (password, with TOTP in X-Gitea-OTP, or a token as password),
 * checked as the API checks it; null without such a header. For the web pages that accept basic authentication.
 */
export async function basicCaller(deps: Deps, req: Request): Promise<Caller | null> {
  const [kind, ...rest] = (req.get('authorization') ?? '').trim().split(/\s+/);
  if (!/^basic$/i.test(kind)) return null;
  return byBasic(deps, rest.join(' '), req.get('x-gitea-otp'));
}

async function byToken(deps: Deps, token: string, method: 'token' | 'query'): Promise<Caller> {
  if (looksLikeJwt(token.trim())) {
    const caller = await byOAuth2Token(deps, token.trim(), method);
    if (!caller) throw unauthorized(badCredentials);
    return caller;
  }
  const found = await authenticateToken(deps.db, token.trim());
  if (found) return signedIn({ user: found.user, method, scope: found.scope, tokenId: found.tokenId });
  const bot = await byTaskToken(deps, token.trim(), method);
  if (!bot) throw unauthorized(badCredentials);
  return bot;
}

/**
 * An access token this instance issued as an OAuth2 provider: a JWT of ours whose grant still exists (one indexed
 * query, so a revoked grant or a deleted application refuses its tokens at once), with the scopes it was granted.
 */
async function byOAuth2Token(deps: Deps, token: string, method: 'token' | 'query'): Promise<Caller | null> {
  const claims = await verifyToken(deps.oauth2Keys, issuerOf(deps.config.rootUrl), token, 'access');
  const found = claims ? await findGrantWithUser(deps.db, claims.gnt) : null;
  if (!claims || !found || String(found.user.id) !== claims.sub) return null;
  const scope = typeof claims.scp === 'string' ? claims.scp : accessScopeOfGrant(found.grant.scope);
  return signedIn({ user: found.user, method, scope, tokenId: null });
}

/**
 * A running task's token (GITEA_TOKEN in a workflow), tried after access tokens as Gitea does: the actions bot,
 * with what a workflow needs (repositories, their issues and packages; reading users and organizations).
 */
async function byTaskToken(deps: Deps, token: string, method: 'token' | 'query'): Promise<Caller | null> {
  if (!deps.config.actions.enabled) return null;
  const bot = await authenticateTaskToken(deps.db, token);
  return bot ? signedIn({ user: bot, method, scope: taskTokenScope, tokenId: null }) : null;
}

const taskTokenScope = normalizeScopes(['write:repository', 'write:issue', 'write:package', 'read:user', 'read:organization', 'read:misc']);

async function byBasic(deps: Deps, encoded: string, otp: string | undefined): Promise<Caller> {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const login = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (decoded.includes('\u0000')) throw unauthorized(badCredentials);
  // A token may stand in the password (or, as git clients do, in the user name with an empty password).
  for (const candidate of [password, password === '' || password === 'x-oauth-basic' ? login : '']) {
    if (looksLikeJwt(candidate)) {
      const caller = await byOAuth2Token(deps, candidate, 'token');
      if (caller) return caller;
    }
    if (!/^[0-9a-f]{40}$/.test(candidate)) continue;
    const found = await authenticateToken(deps.db, candidate);
    if (found) return signedIn({ user: found.user, method: 'token', scope: found.scope, tokenId: found.tokenId });
    const bot = await byTaskToken(deps, candidate, 'token');
    if (bot) return bot;
  }
  const user = await signInWithPassword(deps, login, password);
  if (!user) throw unauthorized(badCredentials);
  const second = await checkTotp(deps.db, user, otp?.trim(), deps.config.security.secretKey);
  if (second === 'invalid') {
    throw unauthorized(otp ? 'invalid provided OTP' : 'two-factor authentication is enabled: send the one-time code in the X-Gitea-OTP header');
  }
  return signedIn({ user, method: 'basic', scope: 'all', tokenId: null });
}

function signedIn(caller: Caller & { user: UserRow }): Caller {
  refuseProhibited(caller.user);
  return caller;
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

function trustedProxies(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    if (cidr === '*') {
      list.addSubnet('0.0.0.0', 0, 'ipv4');
      list.addSubnet('::', 0, 'ipv6');
      continue;
    }
    const [address, bits] = cidr.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    list.addSubnet(address, Number(bits ?? (type === 'ipv4' ? 32 : 128)), type);
  }
  return list;
}

function isTrusted(list: BlockList, remote: string | undefined): boolean {
  if (!remote) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(remote);
  return mapped ? list.check(mapped[1], 'ipv4') : list.check(remote, isIPv4(remote) ? 'ipv4' : 'ipv6');
}
