import test, { type ExecutionContext } from 'ava';
import { Secret, TOTP } from 'otpauth';
import * as client from 'openid-client';
import { inTx } from '../../db/data-source.js';
import { createOAuth2App, type OAuth2AppRow } from '../../db/models/users/oauth2-apps.js';
import { enrollTotp } from '../../db/models/users/two-factor.js';
import { Browser, type Page } from '../helpers/browser.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';

const redirectUri = 'https://app.example.com/callback';

interface Setup { hearth: TestHearth; alice: TestUser; app: OAuth2AppRow; config: client.Configuration; browser: Browser }

async function setUp(t: ExecutionContext, options: { confidential?: boolean } = {}): Promise<Setup> {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { app, secret } = await inTx(hearth.deps, (tx) => createOAuth2App(tx, alice.user, {
    name: 'Tool <One>', redirect_uris: [redirectUri], confidential_client: options.confidential ?? true,
  }));
  const auth = options.confidential === false ? client.None() : client.ClientSecretBasic(secret);
  const config = await client.discovery(new URL(hearth.rootUrl), app.client_id, undefined, auth, { execute: [client.allowInsecureRequests] });
  return { hearth, alice, app, config, browser: new Browser(hearth.rootUrl) };
}

const decode = (value: string): string =>
  value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The hidden fields of a page's form, as a browser would post them. */
function hiddenFields(page: Page): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[match[1]] = decode(match[2]);
  return fields;
}

async function authorizeUrl(s: Setup, scope: string, extra: Record<string, string> = {}): Promise<{ url: URL; verifier: string; state: string; nonce: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(s.config, {
    redirect_uri: redirectUri, scope, state, nonce, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
  });
  return { url, verifier, state, nonce };
}

const count = async (s: Setup, table: 'oauth2_grant' | 'oauth2_authorization_code'): Promise<number> =>
  (await s.hearth.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

test('authorization code + S256 PKCE over HTTP: sign-in through the form, consent, the code exchanged by openid-client, the token on /api/v1; a second authorize skips the consent', async (t) => {
  const s = await setUp(t);
  const { url, verifier, state, nonce } = await authorizeUrl(s, 'openid read:user');
  t.is(url.pathname, '/login/oauth/authorize', 'openid-client found the endpoint by discovery');

  const first = await s.browser.get(url.toString());
  t.is(first.status, 303);
  const toLogin = new URL(first.location!, s.hearth.rootUrl);
  t.is(toLogin.pathname, '/user/login');
  t.is(toLogin.searchParams.get('redirect_to'), `${url.pathname}${url.search}`);

  const login = await s.browser.get(first.location!);
  t.is(hiddenFields(login).redirect_to, `${url.pathname}${url.search}`);
  const signedIn = await s.browser.post('/user/login', { ...hiddenFields(login), user_name: 'alice', password: s.alice.password });
  t.is(signedIn.status, 303);
  t.is(signedIn.location, `${url.pathname}${url.search}`, 'back to the authorize request');

  const consent = await s.browser.get(signedIn.location!);
  t.is(consent.status, 200);
  t.regex(consent.html, /<h1>Authorize Tool &lt;One><\/h1>/, 'the name escaped');
  t.regex(consent.html, /<code>read:user<\/code>/);
  t.regex(consent.html, /name="granted" value="true"/);
  t.regex(consent.headers.get('content-security-policy')!, /form-action 'self' https:\/\/app\.example\.com;/);
  const fields = hiddenFields(consent);
  t.like(fields, { client_id: s.app.client_id, state, nonce, scope: 'openid read:user', redirect_uri: redirectUri, code_challenge_method: 'S256' });
  t.is(await count(s, 'oauth2_grant'), 0, 'nothing granted before consent');

  const granted = await s.browser.post('/login/oauth/grant', { ...fields, granted: 'true' });
  t.is(granted.status, 303);
  const callback = new URL(granted.location!);
  t.is(`${callback.origin}${callback.pathname}`, redirectUri);
  t.is(callback.searchParams.get('state'), state);
  t.truthy(callback.searchParams.get('code'));

  const tokens = await client.authorizationCodeGrant(s.config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  t.is(tokens.claims()!.sub, String(s.alice.user.id));
  const me = await s.hearth.call('GET', '/user', { auth: `Bearer ${tokens.access_token}` });
  t.is(me.status, 200);
  t.is(me.body.login, 'alice');
  const [grant] = await s.hearth.store.db.query<{ scope: string; user_id: number }>('SELECT scope, user_id::int FROM oauth2_grant');
  t.deepEqual(grant, { scope: 'openid read:user', user_id: s.alice.user.id });

  const again = await authorizeUrl(s, 'openid read:user');
  const skipped = await s.browser.get(again.url.toString());
  t.is(skipped.status, 303, 'a confidential client granted these scopes before gets its code at once');
  const secondCallback = new URL(skipped.location!);
  const second = await client.authorizationCodeGrant(s.config, secondCallback, { pkceCodeVerifier: again.verifier, expectedState: again.state, expectedNonce: again.nonce });
  t.is((await s.hearth.call('GET', '/user', { auth: `Bearer ${second.access_token}` })).status, 200);

  const wider = await authorizeUrl(s, 'openid read:user write:repository');
  t.is((await s.browser.get(wider.url.toString())).status, 200, 'more scopes ask again');
});

test('an unknown client or an unregistered redirect_uri shows an error page without redirecting; other errors go back to the client', async (t) => {
  const s = await setUp(t);
  await s.browser.signIn('alice', s.alice.password);
  const { url, state } = await authorizeUrl(s, 'read:user');

  const evil = new URL(url);
  evil.searchParams.set('redirect_uri', 'https://evil.example/callback');
  const refused = await s.browser.get(evil.toString());
  t.is(refused.status, 400);
  t.is(refused.location, null);
  t.regex(refused.html, /Unregistered Redirect URI/);
  t.notRegex(refused.html, /evil\.example/);

  const unknown = new URL(url);
  unknown.searchParams.set('client_id', '00000000-0000-0000-0000-000000000000');
  const noClient = await s.browser.get(unknown.toString());
  t.is(noClient.status, 400);
  t.is(noClient.location, null);
  t.regex(noClient.html, /Client ID not registered/);

  const token = new URL(url);
  token.searchParams.set('response_type', 'token');
  const unsupported = new URL((await s.browser.get(token.toString())).location!);
  t.is(`${unsupported.origin}${unsupported.pathname}`, redirectUri);
  t.is(unsupported.searchParams.get('error'), 'unsupported_response_type');
  t.is(unsupported.searchParams.get('error_description'), 'Only code response type is supported.');
  t.is(unsupported.searchParams.get('state'), state);

  const md5 = new URL(url);
  md5.searchParams.set('code_challenge_method', 'md5');
  const badMethod = new URL((await s.browser.get(md5.toString())).location!);
  t.is(badMethod.searchParams.get('error'), 'invalid_request');
  t.is(badMethod.searchParams.get('error_description'), 'unsupported code challenge method');
  t.is(await count(s, 'oauth2_grant'), 0);
});

test('a public client without PKCE is sent back invalid_request', async (t) => {
  const s = await setUp(t, { confidential: false });
  await s.browser.signIn('alice', s.alice.password);
  const url = client.buildAuthorizationUrl(s.config, { redirect_uri: redirectUri, scope: 'read:user', state: 'st' });
  const answer = new URL((await s.browser.get(url.toString())).location!);
  t.is(answer.searchParams.get('error'), 'invalid_request');
  t.is(answer.searchParams.get('error_description'), 'PKCE is required for public clients');
});

test('denying consent redirects with access_denied and issues nothing', async (t) => {
  const s = await setUp(t);
  await s.browser.signIn('alice', s.alice.password);
  const { url, state } = await authorizeUrl(s, 'read:user');
  const consent = await s.browser.get(url.toString());
  t.is(consent.status, 200);
  const denied = await s.browser.post('/login/oauth/grant', { ...hiddenFields(consent), granted: 'false' });
  t.is(denied.status, 303);
  const back = new URL(denied.location!);
  t.is(`${back.origin}${back.pathname}`, redirectUri);
  t.is(back.searchParams.get('error'), 'access_denied');
  t.is(back.searchParams.get('error_description'), 'the request is denied');
  t.is(back.searchParams.get('state'), state);
  t.is(back.searchParams.get('code'), null);
  t.is(await count(s, 'oauth2_grant'), 0);
  t.is(await count(s, 'oauth2_authorization_code'), 0);
});

test('POST /login/oauth/grant without the CSRF token (or with another session\'s) is refused and issues nothing', async (t) => {
  const s = await setUp(t);
  await s.browser.signIn('alice', s.alice.password);
  const { url } = await authorizeUrl(s, 'read:user');
  const fields = hiddenFields(await s.browser.get(url.toString()));
  const { _csrf: _token, ...withoutCsrf } = fields;

  const missing = await s.browser.post('/login/oauth/grant', { ...withoutCsrf, granted: 'true' });
  t.is(missing.status, 400);
  t.is(missing.location, null);

  const other = new Browser(s.hearth.rootUrl);
  await other.signIn('alice', s.alice.password);
  const foreign = await s.browser.post('/login/oauth/grant', { ...withoutCsrf, _csrf: Browser.csrfOf(await other.get('/')), granted: 'true' });
  t.is(foreign.status, 400, 'a token of another session is refused');
  t.is(await count(s, 'oauth2_grant'), 0);
  t.is(await count(s, 'oauth2_authorization_code'), 0);

  const accepted = await s.browser.post('/login/oauth/grant', { ...fields, granted: 'true' });
  t.is(accepted.status, 303, 'the same form with its token goes through');
  t.is(await count(s, 'oauth2_authorization_code'), 1);
});

test('sign-in follows a same-site relative redirect_to only, never an absolute or protocol-relative one', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  for (const target of ['https://evil.example/x', '//evil.example/x', '/\\evil.example/x', 'javascript:alert(1)']) {
    const browser = new Browser(hearth.rootUrl);
    const form = await browser.get(`/user/login?${new URLSearchParams({ redirect_to: target }).toString()}`);
    t.false('redirect_to' in hiddenFields(form), `${target} is not carried`);
    const answer = await browser.post('/user/login', { _csrf: Browser.csrfOf(form), user_name: 'alice', password: alice.password, redirect_to: target });
    t.is(answer.status, 303);
    t.is(answer.location, '/', `${target} is not followed`);
    t.truthy(browser.cookies.get('hearth_session'), 'the sign-in itself worked');
  }
  const browser = new Browser(hearth.rootUrl);
  const answer = await browser.signIn('alice', alice.password, { redirect_to: '/explore/repos?q=a' });
  t.is(answer.location, '/explore/repos?q=a');
});

test('with TOTP enrolled, redirect_to is carried through the second step back to the authorize request', async (t) => {
  const s = await setUp(t);
  const { secret } = await inTx(s.hearth.store, (tx) => enrollTotp(tx, s.alice.user, s.hearth.config.security.secretKey));
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const { url } = await authorizeUrl(s, 'read:user');
  const back = `${url.pathname}${url.search}`;
  const login = await s.browser.get((await s.browser.get(url.toString())).location!);
  const password = await s.browser.post('/user/login', { ...hiddenFields(login), user_name: 'alice', password: s.alice.password });
  t.is(password.status, 303);
  t.is(new URL(password.location!, s.hearth.rootUrl).pathname, '/user/two_factor');
  const step = await s.browser.get(password.location!);
  t.is(hiddenFields(step).redirect_to, back);
  const done = await s.browser.post('/user/two_factor', { ...hiddenFields(step), passcode: totp.generate() });
  t.is(done.status, 303);
  t.is(done.location, back);
  t.is((await s.browser.get(done.location!)).status, 200, 'the consent page');
});
