import { inTx } from '../../../db/data-source.js';
import { HttpError } from '../../../db/errors.js';
import { checkTotp } from '../../../db/models/users/two-factor.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import {
  createWebSession, deleteWebSession, isThrottled, recordLoginFailure, sweepWebSignIn, throttleKeys,
} from '../../../db/models/users/web-sessions.js';
import { refuseProhibited } from '../../auth/sign-in.js';
import { signInWithPassword } from '../../auth/password-sign-in.js';
import { page, type PageAnswer, type PageContext } from '../page.js';
import { sameSiteRedirect } from '../redirect-to.js';
import { clearSessionCookie, setSessionCookie } from '../session.js';
import { Csrf, ErrorMessage } from './layout.js';
import { useHref } from './site.js';

function RedirectTo({ to }: { to: string | null }) {
  return to ? <input type="hidden" name="redirect_to" value={to} /> : null;
}

function LoginForm({ userName, error, redirectTo }: { userName?: string; error?: string; redirectTo: string | null }) {
  const href = useHref();
  return (
    <form class="panel" method="post" action={href('user', 'login')}>
      <h1>Sign in</h1>
      {error ? <p class="flash" role="alert">{error}</p> : null}
      <Csrf />
      <RedirectTo to={redirectTo} />
      <label>Username or email address<input type="text" name="user_name" value={userName ?? ''} autocomplete="username" required autofocus /></label>
      <label>Password<input type="password" name="password" autocomplete="current-password" required /></label>
      <label class="check"><input type="checkbox" name="remember" value="on" /> Remember this device</label>
      <button class="primary" type="submit">Sign in</button>
    </form>
  );
}

function TwoFactorForm({ error, redirectTo }: { error?: string; redirectTo: string | null }) {
  const href = useHref();
  return (
    <form class="panel" method="post" action={href('user', 'two_factor')}>
      <h1>Two-factor authentication</h1>
      {error ? <p class="flash" role="alert">{error}</p> : null}
      <Csrf />
      <RedirectTo to={redirectTo} />
      <label>Passcode<input type="text" name="passcode" inputmode="numeric" autocomplete="one-time-code" required autofocus /></label>
      <button class="primary" type="submit">Verify</button>
    </form>
  );
}

const loginPage = (status: number, redirectTo: string | null, userName?: string, error?: string): PageAnswer =>
  ({ status, title: 'Sign in', body: <LoginForm userName={userName} error={error} redirectTo={redirectTo} /> });

const throttled: PageAnswer = {
  status: 429, title: 'Too many attempts',
  body: <ErrorMessage title="Too many sign-in attempts" text="Too many failed sign-ins for this account or from this address. Wait a few minutes and try again." />,
};

const home = ({ deps }: PageContext): string => new URL(deps.config.rootUrl).pathname;
/** Where a finished sign-in lands: the form's or query's `redirect_to` when it is a path of this instance, else home. */
const redirectOf = (ctx: PageContext): string | null => sameSiteRedirect(ctx.deps, ctx.form.redirect_to ?? ctx.query.redirect_to);
const landing = (ctx: PageContext): string => redirectOf(ctx) ?? home(ctx);
/** Who a request comes from, for throttling (`trust proxy` is off: the peer's address). */
const addressOf = ({ req }: PageContext): string => req.socket.remoteAddress ?? 'unknown';

/** A full session for `user` in place of whatever session the browser had (no session fixation). */
async function signIn(ctx: PageContext, user: UserRow, remember: boolean, pendingTwoFactor: boolean): Promise<void> {
  const { deps, res, visitor } = ctx;
  const created = await inTx(deps, async (tx) => {
    if (visitor.session) await deleteWebSession(tx, visitor.session.idHash);
    await sweepWebSignIn(tx);
    return createWebSession(tx, user, { remember, pendingTwoFactor });
  });
  setSessionCookie(deps, res, created.id, created.maxAgeSeconds, remember && !pendingTwoFactor);
}

export const signInPages = [
  page({
    path: '/user/login',
    handle: async (ctx) => (ctx.caller.user ? { redirect: landing(ctx) } : loginPage(200, redirectOf(ctx))),
  }),
  page({
    method: 'post', path: '/user/login',
    handle: async (ctx) => {
      const { deps, form } = ctx;
      const login = (form.user_name ?? '').trim();
      const keys = throttleKeys(login, addressOf(ctx));
      if (await isThrottled(deps.db, keys)) return throttled;
      const user = login ? await signInWithPassword(deps, login, form.password ?? '') : null;
      if (!user) {
        await recordLoginFailure(deps.db, keys);
        return loginPage(200, redirectOf(ctx), login, 'Username or password is incorrect.');
      }
      try {
        refuseProhibited(user);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        return { status: 403, title: 'Sign in prohibited', body: <ErrorMessage title="Sign in prohibited" text={error.message} /> };
      }
      const remember = form.remember === 'on';
      const enrolled = (await checkTotp(deps.db, user, undefined, deps.config.security.secretKey)) !== 'not-enrolled';
      await signIn(ctx, user, remember, enrolled);
      const to = redirectOf(ctx);
      if (!enrolled) return { redirect: landing(ctx) };
      return { redirect: `${home(ctx)}user/two_factor${to ? `?${new URLSearchParams({ redirect_to: to }).toString()}` : ''}` };
    },
  }),
  page({
    path: '/user/two_factor',
    handle: async (ctx) => (ctx.visitor.session?.pendingTwoFactor
      ? { title: 'Two-factor authentication', body: <TwoFactorForm redirectTo={redirectOf(ctx)} /> }
      : { redirect: `${home(ctx)}user/login` }),
  }),
  page({
    method: 'post', path: '/user/two_factor',
    handle: async (ctx) => {
      const { deps, form, visitor } = ctx;
      const session = visitor.session;
      if (!session?.pendingTwoFactor) return { redirect: `${home(ctx)}user/login` };
      const keys = throttleKeys(session.user.lower_name, addressOf(ctx));
      if (await isThrottled(deps.db, keys)) return throttled;
      const check = await checkTotp(deps.db, session.user, (form.passcode ?? '').trim(), deps.config.security.secretKey);
      if (check !== 'valid') {
        await recordLoginFailure(deps.db, keys);
        return { status: 200, title: 'Two-factor authentication', body: <TwoFactorForm error="Your passcode is incorrect." redirectTo={redirectOf(ctx)} /> };
      }
      await signIn(ctx, session.user, session.remember, false);
      return { redirect: landing(ctx) };
    },
  }),
  page({
    method: 'post', path: '/user/logout',
    handle: async (ctx) => {
      const { deps, res, visitor } = ctx;
      if (visitor.session) await deleteWebSession(deps.db, visitor.session.idHash);
      clearSessionCookie(deps, res);
      return { redirect: home(ctx) };
    },
  }),
];
