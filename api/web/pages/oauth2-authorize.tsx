import { inTx } from '../../../db/data-source.js';
import { HttpError } from '../../../db/errors.js';
import { findOAuth2AppByClientId, type OAuth2AppRow } from '../../../db/models/users/oauth2-apps.js';
import { containsRedirectUri, findGrant, issueAuthorizationCode, type CodeChallengeMethod } from '../../../db/models/users/oauth2-grants.js';
import { findUsersByIds, type UserRow } from '../../../db/models/users/user-row.js';
import { page, type PageAnswer, type PageContext } from '../page.js';
import { Csrf, ErrorMessage } from './layout.js';
import { useHref } from './site.js';

/** The fields the authorize request and the consent form share (Gitea's names; PKCE's two carried as hidden fields). */
interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  scope: string;
  nonce: string;
  codeChallenge: string;
  method: string;
}

const requestOf = (fields: Record<string, string>): AuthorizeRequest => ({
  clientId: fields.client_id ?? '',
  redirectUri: fields.redirect_uri ?? '',
  state: fields.state ?? '',
  scope: fields.scope ?? '',
  nonce: fields.nonce ?? '',
  codeChallenge: fields.code_challenge ?? '',
  method: fields.code_challenge_method ?? '',
});

/** Gitea's answer when the client or its redirect URI cannot be trusted: a page, never a redirect. */
const refusal = (text: string): PageAnswer => ({
  status: 400, title: 'Authorization failed', body: <ErrorMessage title="Authorization failed" text={text} />,
});

/** An OAuth2 answer sent back to the client: its redirect URI with the given parameters (and the state, if any). */
function toClient(request: AuthorizeRequest, params: Record<string, string>): PageAnswer {
  const target = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  if (request.state) target.searchParams.set('state', request.state);
  return { redirect: target.toString() };
}

const clientError = (request: AuthorizeRequest, error: string, description: string): PageAnswer =>
  toClient(request, { error, error_description: description });

/** The application of a request whose redirect URI it registered, or the refusal page. */
async function trustedApp(ctx: PageContext, request: AuthorizeRequest): Promise<OAuth2AppRow | PageAnswer> {
  const app = await findOAuth2AppByClientId(ctx.deps.db, request.clientId);
  if (!app) return refusal('Client ID not registered');
  if (!URL.canParse(request.redirectUri) || !containsRedirectUri(app, request.redirectUri)) return refusal('Unregistered Redirect URI');
  return app;
}

/** Gitea's PKCE rule: `S256` or `plain`; none only for a confidential client. Null when the request may go on. */
function pkceRefusal(app: OAuth2AppRow, request: AuthorizeRequest): PageAnswer | null {
  if (request.method === '') {
    return app.confidential_client || request.codeChallenge ? null : clientError(request, 'invalid_request', 'PKCE is required for public clients');
  }
  return ['S256', 'plain'].includes(request.method) ? null : clientError(request, 'invalid_request', 'unsupported code challenge method');
}

/** Issues the code and sends it to the client; a refusal of the model goes to the client as its OAuth2 error. */
async function sendCode(ctx: PageContext, app: OAuth2AppRow, user: UserRow, request: AuthorizeRequest): Promise<PageAnswer> {
  try {
    const { code } = await inTx(ctx.deps, (tx) => issueAuthorizationCode(tx, {
      app, user, redirectUri: request.redirectUri, scope: request.scope,
      codeChallenge: request.codeChallenge, method: request.method as CodeChallengeMethod, nonce: request.nonce,
    }));
    return toClient(request, { code });
  } catch (error) {
    if (!(error instanceof HttpError) || typeof error.extra.error !== 'string') throw error;
    return clientError(request, error.extra.error, error.message);
  }
}

/** Where the browser may be sent by the consent form's answer, for the page's `form-action`. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

function ConsentForm({ app, owner, request }: { app: OAuth2AppRow; owner: string; request: AuthorizeRequest }) {
  const href = useHref();
  const scopes = request.scope.split(/\s+/).filter(Boolean);
  const hidden: Array<[string, string]> = [
    ['client_id', request.clientId], ['state', request.state], ['scope', request.scope], ['nonce', request.nonce],
    ['redirect_uri', request.redirectUri], ['code_challenge', request.codeChallenge], ['code_challenge_method', request.method],
  ];
  return (
    <form class="panel" method="post" action={href('login', 'oauth', 'grant')}>
      <h1>Authorize {app.name}</h1>
      <p>The application <strong>{app.name}</strong>, registered by <a href={href(owner)}>@{owner}</a>, asks to access your account.</p>
      {scopes.length
        ? <><p>It asks for these scopes:</p><ul class="scopes">{scopes.map((s) => <li><code>{s}</code></li>)}</ul></>
        : <p>It asks for no particular scope: full access to your account.</p>}
      <p>You will be sent to <strong>{request.redirectUri}</strong>.</p>
      <Csrf />
      {hidden.map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <button class="primary" type="submit" name="granted" value="true">Authorize</button>
      <button type="submit" name="granted" value="false">Cancel</button>
    </form>
  );
}

async function ownerName(ctx: PageContext, app: OAuth2AppRow): Promise<string> {
  return (await findUsersByIds(ctx.deps.db, [app.uid])).get(app.uid)?.name ?? '';
}

export const oauth2AuthorizePages = [
  page({
    path: '/login/oauth/authorize',
    handle: async (ctx) => {
      const request = requestOf(ctx.query);
      const app = await trustedApp(ctx, request);
      if (!('client_id' in app)) return app;
      if ((ctx.query.response_type ?? '') !== 'code') return clientError(request, 'unsupported_response_type', 'Only code response type is supported.');
      const pkce = pkceRefusal(app, request);
      if (pkce) return pkce;
      const user = ctx.caller.user;
      if (!user) {
        const here = `${new URL(ctx.deps.config.rootUrl).pathname}login/oauth/authorize?${new URLSearchParams(ctx.query).toString()}`;
        return { redirect: `${new URL(ctx.deps.config.rootUrl).pathname}user/login?${new URLSearchParams({ redirect_to: here }).toString()}` };
      }
      // Gitea skips the consent of a confidential client the user granted before; here only for the same scopes.
      const grant = await findGrant(ctx.deps.db, user.id, app.id);
      if (app.confidential_client && grant && grant.scope === request.scope.trim()) return sendCode(ctx, app, user, request);
      return {
        title: `Authorize ${app.name}`, body: <ConsentForm app={app} owner={await ownerName(ctx, app)} request={request} />,
        formTargets: [formTarget(request.redirectUri)],
      };
    },
  }),
  page({
    method: 'post', path: '/login/oauth/grant',
    handle: async (ctx) => {
      const user = ctx.caller.user;
      if (!user) return { redirect: `${new URL(ctx.deps.config.rootUrl).pathname}user/login` };
      const request = requestOf(ctx.form);
      const app = await trustedApp(ctx, request);
      if (!('client_id' in app)) return app;
      if (ctx.form.granted !== 'true') return clientError(request, 'access_denied', 'the request is denied');
      const pkce = pkceRefusal(app, request);
      if (pkce) return pkce;
      return sendCode(ctx, app, user, request);
    },
  }),
];
