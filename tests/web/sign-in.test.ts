import test from 'ava';
import { Secret, TOTP } from 'otpauth';
import { inTx } from '../../db/data-source.js';
import { enrollTotp } from '../../db/models/users/two-factor.js';
import { recordLoginFailure, throttleKeys } from '../../db/models/users/web-sessions.js';
import { Browser } from '../helpers/browser.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

const sessions = async (hearth: TestHearth, userId: number): Promise<Array<{ pending_two_factor: boolean; remember: boolean; ttl: number }>> =>
  hearth.store.db.query(
    'SELECT pending_two_factor, remember, extract(epoch FROM expires_at - now())::int AS ttl FROM web_session WHERE user_id = $1 ORDER BY created_at',
    [userId],
  );

test('signing in sets an HttpOnly, SameSite=Lax session cookie, stored hashed; the header then shows the user', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  const form = await browser.get('/user/login');
  t.is(form.status, 200);
  t.regex(form.html, /<input type="text" name="user_name"/);
  t.is(Browser.signedInAs(form), null);

  const answer = await browser.post('/user/login', { _csrf: Browser.csrfOf(form), user_name: 'alice', password: alice.password });
  t.is(answer.status, 303);
  t.is(answer.location, '/');
  const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('hearth_session='))!;
  t.regex(cookie, /HttpOnly/i);
  t.regex(cookie, /SameSite=Lax/i);
  t.notRegex(cookie, /Secure/i, 'the root URL is http');
  t.notRegex(cookie, /Max-Age/i, 'without remember the cookie ends with the browser');
  const id = browser.cookies.get('hearth_session')!;
  const stored = await hearth.store.db.query<{ id_hash: string }>('SELECT id_hash FROM web_session WHERE user_id = $1', [alice.user.id]);
  t.is(stored.length, 1);
  t.not(stored[0].id_hash, id, 'the cookie value is not stored');

  const home = await browser.get('/');
  t.is(Browser.signedInAs(home), 'alice');
  t.regex(home.html, /action="\/user\/logout"/);
  const [user] = await hearth.store.db.query<{ last_login: Date | null }>('SELECT last_login FROM "user" WHERE id = $1', [alice.user.id]);
  t.truthy(user.last_login);
});

test('remember gives a month-long session and a persistent cookie; https root URLs get Secure cookies', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  const answer = await browser.signIn('alice', alice.password, { remember: 'on' });
  t.is(answer.status, 303);
  t.regex(answer.headers.getSetCookie().find((line) => line.startsWith('hearth_session='))!, /Max-Age=2678400/);
  const [row] = await sessions(hearth, alice.user.id);
  t.true(row.remember);
  t.true(row.ttl > 30 * 24 * 3600);

  const secure = await startHearth(t, { HEARTH_ROOT_URL: 'https://forge.example/' });
  const bob = await secure.createUser('bob');
  // the server listens on plain http: the browser goes to it directly, while links and cookies speak of https
  const direct = new Browser(`http://127.0.0.1:${secure.config.port}/`);
  const behindTls = await direct.signIn('bob', bob.password);
  t.is(behindTls.status, 303);
  t.regex(behindTls.headers.getSetCookie().find((line) => line.startsWith('hearth_session='))!, /; Secure/);
});

test('a wrong password is refused with the form again and no session; the failure is counted', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  const answer = await browser.signIn('alice', 'not-the-password');
  t.is(answer.status, 200);
  t.regex(answer.html, /Username or password is incorrect\./);
  t.regex(answer.html, /value="alice"/);
  t.false(browser.cookies.has('hearth_session'));
  t.deepEqual(await sessions(hearth, alice.user.id), []);
  const [failures] = await hearth.store.db.query<{ n: string }>("SELECT count(*) AS n FROM web_login_failure WHERE key = 'account:alice'");
  t.is(Number(failures.n), 1);
  t.is((await browser.signIn('nobody', 'x')).status, 200, 'an unknown account reads the same');
});

test('with TOTP enrolled the password opens only the second step; the passcode completes the sign-in', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const { secret } = await inTx(hearth.store, (tx) => enrollTotp(tx, alice.user, hearth.config.security.secretKey));
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const near = new Set([-2, -1, 0, 1, 2].map((k) => totp.generate({ timestamp: Date.now() + k * 30_000 })));
  const wrong = ['000000', '111111', '222222', '333333', '444444', '555555'].find((code) => !near.has(code))!;

  const browser = new Browser(hearth.rootUrl);
  const first = await browser.signIn('alice', alice.password, { remember: 'on' });
  t.is(first.status, 303);
  t.is(first.location, '/user/two_factor');
  t.deepEqual((await sessions(hearth, alice.user.id)).map((row) => row.pending_two_factor), [true]);
  t.is(Browser.signedInAs(await browser.get('/')), null, 'a pending second step signs nobody in');
  t.is((await hearth.call('GET', '/user', { headers: { Cookie: `hearth_session=${browser.cookies.get('hearth_session')}` } })).status, 401);

  const step = await browser.get('/user/two_factor');
  t.regex(step.html, /name="passcode"/);
  const refused = await browser.post('/user/two_factor', { _csrf: Browser.csrfOf(step), passcode: wrong });
  t.is(refused.status, 200);
  t.regex(refused.html, /Your passcode is incorrect\./);
  t.is(Browser.signedInAs(await browser.get('/')), null);

  const done = await browser.post('/user/two_factor', { _csrf: Browser.csrfOf(step), passcode: totp.generate() });
  t.is(done.status, 303);
  t.is(Browser.signedInAs(await browser.get('/')), 'alice');
  const rows = await sessions(hearth, alice.user.id);
  t.deepEqual(rows.map((row) => [row.pending_two_factor, row.remember]), [[false, true]], 'the pending session was replaced');
});

test('a form without its CSRF token, or with a stale one, is refused with 400 and changes nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  const form = await browser.get('/user/login');
  const missing = await browser.post('/user/login', { user_name: 'alice', password: alice.password });
  t.is(missing.status, 400);
  t.regex(missing.html, /The form has expired or is invalid/);
  const forged = await browser.post('/user/login', { _csrf: 'x'.repeat(43), user_name: 'alice', password: alice.password });
  t.is(forged.status, 400);
  t.deepEqual(await sessions(hearth, alice.user.id), []);
  const other = new Browser(hearth.rootUrl);
  await other.get('/user/login');
  t.is((await other.post('/user/login', { _csrf: Browser.csrfOf(form), user_name: 'alice', password: alice.password })).status, 400, "another browser's token");

  const anonymousToken = Browser.csrfOf(form);
  t.is((await browser.post('/user/login', { _csrf: anonymousToken, user_name: 'alice', password: alice.password })).status, 303);
  const staleLogout = await browser.post('/user/logout', { _csrf: anonymousToken });
  t.is(staleLogout.status, 400, 'the token from before signing in is stale');
  t.is((await sessions(hearth, alice.user.id)).length, 1);
  t.is(Browser.signedInAs(await browser.get('/')), 'alice');
});

test('sign-in is throttled per account and per address: past 5 failures in 5 minutes, 429 even for the right password', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  // five failures for bob from elsewhere (another address): bob is refused here, alice is not
  await recordLoginFailure(hearth.store.db, Array.from({ length: 5 }, () => throttleKeys('BOB', '203.0.113.9')[0]));
  const browser = new Browser(hearth.rootUrl);
  const refused = await browser.signIn('bob', bob.password);
  t.is(refused.status, 429);
  t.regex(refused.html, /Too many sign-in attempts/);
  t.deepEqual(await sessions(hearth, bob.user.id), []);
  t.is((await browser.signIn('alice', alice.password)).status, 303);
  await browser.post('/user/logout', { _csrf: Browser.csrfOf(await browser.get('/')) });

  // five failures from this address on five accounts: the address is refused, for alice too
  for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) t.is((await browser.signIn(name, 'wrong')).status, 200);
  const byAddress = await browser.signIn('alice', alice.password);
  t.is(byAddress.status, 429);
  t.is((await sessions(hearth, alice.user.id)).length, 0);
});

test('signing out deletes the session row; the old cookie signs nobody in', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  await browser.signIn('alice', alice.password);
  const old = browser.cookies.get('hearth_session')!;
  const home = await browser.get('/');
  const out = await browser.post('/user/logout', { _csrf: Browser.csrfOf(home) });
  t.is(out.status, 303);
  t.regex(out.headers.getSetCookie().join('\n'), /hearth_session=;.*Max-Age=0/);
  t.deepEqual(await sessions(hearth, alice.user.id), []);
  const replay = new Browser(hearth.rootUrl);
  replay.cookies.set('hearth_session', old);
  t.is(Browser.signedInAs(await replay.get('/')), null);
});

test('a session cookie is never accepted on /api/v1 (spec, Authentication rule 4)', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await hearth.call('POST', '/user/repos', { auth: alice.bearer, body: { name: 'secret', private: true } });
  const browser = new Browser(hearth.rootUrl);
  await browser.signIn('alice', alice.password);
  const cookie = `hearth_session=${browser.cookies.get('hearth_session')}`;
  t.is((await browser.get('/alice/secret')).status, 200, 'the session works on pages');
  const user = await hearth.call('GET', '/user', { headers: { Cookie: cookie } });
  t.is(user.status, 401);
  t.is((await hearth.call('GET', '/repos/alice/secret', { headers: { Cookie: cookie } })).status, 404);
  t.is((await hearth.call('POST', '/user/repos', { headers: { Cookie: cookie }, body: { name: 'made' } })).status, 401);
  t.is((await hearth.call('GET', '/repos/alice/made', { auth: alice.bearer })).status, 404, 'nothing was created');
});

test('an inactive or prohibited user cannot sign in, and their open session stops working', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const browser = new Browser(hearth.rootUrl);
  await browser.signIn('alice', alice.password);
  t.is(Browser.signedInAs(await browser.get('/')), 'alice');
  await hearth.store.db.query('UPDATE "user" SET prohibit_login = true WHERE id = $1', [alice.user.id]);
  t.is(Browser.signedInAs(await browser.get('/')), null);
  const fresh = new Browser(hearth.rootUrl);
  const refused = await fresh.signIn('alice', alice.password);
  t.is(refused.status, 403);
  t.regex(refused.html, /prohibited from signing in/);
  t.false(fresh.cookies.has('hearth_session'));
  await hearth.store.db.query('UPDATE "user" SET prohibit_login = false, is_active = false WHERE id = $1', [alice.user.id]);
  t.is((await fresh.signIn('alice', alice.password)).status, 403);
  t.is((await sessions(hearth, alice.user.id)).length, 1, 'only the first, now unusable, session');
});
