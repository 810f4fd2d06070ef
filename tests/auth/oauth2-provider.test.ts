import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { inTx } from '../../db/data-source.js';
import { createOAuth2App, deleteOAuth2App, type OAuth2AppRow } from '../../db/models/users/oauth2-apps.js';
import { issueAuthorizationCode, type CodeChallengeMethod } from '../../db/models/users/oauth2-grants.js';
import { OAuth2SigningKeys } from '../../db/oauth2/signing-key.js';
import { build } from '../helpers/build.js';
import { basicAuth, startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const redirectUri = 'https://app.example.com/callback';

interface Setup { hearth: TestHearth; alice: TestUser; app: OAuth2AppRow; secret: string; config: client.Configuration }

async function setUp(t: ExecutionContext, options: { confidential?: boolean; redirectUris?: string[] } = {}): Promise<Setup> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { app, secret } = await inTx(hearth.deps, (tx) => createOAuth2App(tx, alice.user, {
    name: 'tool', redirect_uris: options.redirectUris ?? [redirectUri], confidential_client: options.confidential ?? true,
  }));
  const auth = options.confidential === false ? client.None() : client.ClientSecretBasic(secret);
  const config = await client.discovery(new URL(hearth.rootUrl), app.client_id, undefined, auth, { execute: [client.allowInsecureRequests] });
  return { hearth, alice, app, secret, config };
}

/** The code straight from the model function the consent page calls (tests/auth/oauth2-authorize.test.ts goes through the pages). */
async function codeFor(s: Setup, scope: string, pkce: { verifier: string; method?: CodeChallengeMethod }, extra: { nonce?: string; redirect?: string } = {}): Promise<{ code: string; callback: URL }> {
  const method = pkce.method ?? 'S256';
  const challenge = method === 'S256' ? await client.calculatePKCECodeChallenge(pkce.verifier) : pkce.verifier;
  const { code } = await inTx(s.hearth.deps, (tx) => issueAuthorizationCode(tx, {
    app: s.app, user: s.alice.user, redirectUri: extra.redirect ?? redirectUri, scope, codeChallenge: challenge, method, nonce: extra.nonce,
  }));
  const callback = new URL(extra.redirect ?? redirectUri);
  callback.searchParams.set('code', code);
  callback.searchParams.set('state', 'st-1');
  return { code, callback };
}

async function oauthError(t: ExecutionContext, promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  t.truthy(error, `expected ${code}`);
  t.is((error as { error?: string }).error, code, String((error as Error)?.message));
}

test('code from issueAuthorizationCode, exchanged with S256 PKCE by openid-client: ID token verifies against the JWKS, the access token works on /api/v1 within its scopes only, userinfo and introspection answer', async (t) => {
  const s = await setUp(t);
  const org = await build.org(s.hearth, s.alice, { name: 'acme' });
  await build.team(s.hearth, org, { name: 'devs', members: [s.alice] });
  const verifier = client.randomPKCECodeVerifier();
  const { callback } = await codeFor(s, 'openid profile email groups read:user', { verifier }, { nonce: 'n-123' });
  const tokens = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1', expectedNonce: 'n-123', idTokenExpected: true });

  const claims = tokens.claims()!;
  t.is(claims.sub, String(s.alice.user.id));
  t.is(claims.preferred_username, 'alice');
  t.is(claims.email, 'alice@example.com');
  t.true(claims.email_verified);
  t.deepEqual(claims.groups, ['acme', 'acme:devs', 'acme:Owners'].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  const jwks = createRemoteJWKSet(new URL(`${s.hearth.rootUrl}login/oauth/keys`));
  const verified = await jwtVerify(tokens.id_token!, jwks, { issuer: s.hearth.rootUrl.replace(/\/$/, ''), audience: s.app.client_id });
  t.is(verified.payload.nonce, 'n-123');
  t.is(verified.protectedHeader.alg, 'RS256');

  const me = await s.hearth.call('GET', '/user', { auth: `Bearer ${tokens.access_token}` });
  t.is(me.status, 200);
  t.is(me.body.login, 'alice');
  const asPassword = await s.hearth.call('GET', '/user', { auth: basicAuth('alice', tokens.access_token) });
  t.is(asPassword.status, 200, 'an OAuth2 access token is accepted as the basic-auth password');
  t.is(asPassword.body.login, 'alice');

  const narrow = await s.hearth.call<{ sha1: string }>('POST', '/users/alice/tokens', { auth: s.alice.basic, body: { name: 'narrow', scopes: ['read:user'] } });
  t.is(narrow.status, 201);
  const byToken = await s.hearth.call('POST', '/user/repos', { auth: `token ${narrow.body.sha1}`, body: { name: 'x' } });
  const byOAuth = await s.hearth.call('POST', '/user/repos', { auth: `Bearer ${tokens.access_token}`, body: { name: 'x' } });
  t.is(byOAuth.status, 403);
  t.is(byToken.status, 403);
  t.deepEqual(byOAuth.body.message, byToken.body.message);
  t.is((await s.hearth.store.db.query('SELECT count(*)::int AS n FROM repository WHERE lower_name = $1', ['x']))[0].n, 0);

  const info = await client.fetchUserInfo(s.config, tokens.access_token, String(s.alice.user.id));
  t.is(info.preferred_username, 'alice');
  t.is(info.email, 'alice@example.com');
  const introspected = await client.tokenIntrospection(s.config, tokens.access_token);
  t.true(introspected.active);
  t.is(introspected.username, 'alice');
  t.false((await client.tokenIntrospection(s.config, 'not-a-token')).active);
});

test('refresh tokens rotate; a reused one revokes the grant and its access tokens (401)', async (t) => {
  const s = await setUp(t);
  const verifier = client.randomPKCECodeVerifier();
  const { callback } = await codeFor(s, 'read:user', { verifier });
  const first = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' });
  const second = await client.refreshTokenGrant(s.config, first.refresh_token!);
  t.not(second.refresh_token, first.refresh_token);
  t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${second.access_token}` })).status, 200);
  const third = await client.refreshTokenGrant(s.config, second.refresh_token!);

  await oauthError(t, client.refreshTokenGrant(s.config, first.refresh_token!), 'invalid_grant');
  t.is((await s.hearth.store.db.query('SELECT count(*)::int AS n FROM oauth2_grant'))[0].n, 0, 'the grant is gone');
  for (const token of [first.access_token, second.access_token, third.access_token]) {
    t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${token}` })).status, 401);
  }
  await oauthError(t, client.refreshTokenGrant(s.config, third.refresh_token!), 'invalid_grant');
});

test('wrong client secret, wrong PKCE verifier, a reused code and an expired code are refused with OAuth2 errors and issue nothing', async (t) => {
  const s = await setUp(t);
  const verifier = client.randomPKCECodeVerifier();
  const { callback } = await codeFor(s, 'read:user', { verifier });

  const wrongSecret = await client.discovery(new URL(s.hearth.rootUrl), s.app.client_id, undefined, client.ClientSecretPost('gto_wrong'), { execute: [client.allowInsecureRequests] });
  await oauthError(t, client.authorizationCodeGrant(wrongSecret, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' }), 'invalid_client');
  await oauthError(t, client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: 'st-1' }), 'invalid_grant');
  t.is((await s.hearth.store.db.query('SELECT counter::int FROM oauth2_grant'))[0].counter, 1, 'no tokens issued');

  const tokens = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' });
  t.truthy(tokens.access_token);
  await oauthError(t, client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' }), 'invalid_grant');

  const late = await codeFor(s, 'read:user', { verifier });
  await s.hearth.store.db.query("UPDATE oauth2_authorization_code SET valid_until = now() - interval '1 minute'");
  await oauthError(t, client.authorizationCodeGrant(s.config, late.callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' }), 'invalid_grant');

  const raw = await fetch(`${s.hearth.rootUrl}login/oauth/access_token`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: late.code, client_id: s.app.client_id, client_secret: s.secret, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  t.is(raw.status, 400);
  t.deepEqual(await raw.json(), { error: 'invalid_grant', error_description: 'code has expired' });
  for (const body of ['', 'grant_type=password', '{"grant_type":', 'grant_type=authorization_code']) {
    const answer = await fetch(`${s.hearth.rootUrl}login/oauth/access_token`, {
      method: 'POST', headers: { 'Content-Type': body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded' }, body,
    });
    t.true(answer.status === 400 || answer.status === 401, body);
    const json = await answer.json() as { error: string; error_description: string };
    t.is(typeof json.error, 'string');
    t.is(typeof json.error_description, 'string');
  }
});

test('a public client: plain PKCE, no secret, any port on a registered loopback redirect; an unregistered redirect issues no code', async (t) => {
  const s = await setUp(t, { confidential: false, redirectUris: ['http://127.0.0.1/callback'] });
  const verifier = client.randomPKCECodeVerifier();
  const loopback = 'http://127.0.0.1:49152/callback';
  const { callback } = await codeFor(s, 'openid read:user', { verifier, method: 'plain' }, { redirect: loopback });
  const tokens = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' });
  t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${tokens.access_token}` })).status, 200);

  for (const redirect of ['http://127.0.0.1:49152/other', 'http://localhost:49152/callback', 'https://127.0.0.1:49152/callback']) {
    const error = await codeFor(s, 'read:user', { verifier }, { redirect }).then(() => null, (e: unknown) => e);
    t.is((error as { extra?: { error?: string } })?.extra?.error, 'invalid_request', redirect);
  }
  const error = await inTx(s.hearth.deps, (tx) => issueAuthorizationCode(tx, { app: s.app, user: s.alice.user, redirectUri: loopback, scope: 'read:user' })).then(() => null, (e: unknown) => e);
  t.regex(String((error as Error)?.message), /PKCE/);
  t.is((await s.hearth.store.db.query('SELECT count(*)::int AS n FROM oauth2_authorization_code'))[0].n, 0, 'only the redeemed code existed');
});

test('deleting the application revokes its tokens at once; discovery names the endpoints; the signing key is kept across starts', async (t) => {
  const s = await setUp(t);
  const verifier = client.randomPKCECodeVerifier();
  const { callback } = await codeFor(s, 'openid', { verifier });
  const tokens = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: 'st-1' });
  t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${tokens.access_token}` })).status, 200, 'a grant without granular scopes gives all');
  const repo = await build.repo(s.hearth, s.alice, { name: 'secret', private: true, autoInit: true });
  const refs = (): Promise<Response> => fetch(`${s.hearth.rootUrl}alice/${repo.name}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: basicAuth('alice', tokens.access_token) } });
  const before = await refs();
  t.is(before.status, 200, 'git over HTTP takes the access token as the password');
  t.regex(await before.text(), /refs\/heads\/main/);
  await inTx(s.hearth.deps, (tx) => deleteOAuth2App(tx, s.alice.user, s.app.id));
  t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${tokens.access_token}` })).status, 401);
  t.is((await refs()).status, 401);
  const userinfo = await fetch(`${s.hearth.rootUrl}login/oauth/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  t.is(userinfo.status, 401);
  t.is(((await userinfo.json()) as { error: string }).error, 'invalid_token');

  const meta = s.config.serverMetadata();
  t.is(meta.token_endpoint, `${s.hearth.rootUrl}login/oauth/access_token`);
  t.deepEqual(meta.code_challenge_methods_supported, ['plain', 'S256']);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'hearth-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [one, two] = await Promise.all([new OAuth2SigningKeys(dir).get(), new OAuth2SigningKeys(dir).get()]);
  t.is(one.publicJwk.kid, two.publicJwk.kid, 'two processes starting together share one key');
  t.is((await new OAuth2SigningKeys(dir).get()).publicJwk.kid, one.publicJwk.kid);
  t.is(statSync(path.join(dir, 'jwt', 'private.pem')).mode & 0o777, 0o600);
});
