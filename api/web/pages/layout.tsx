import type { ComponentChildren } from 'preact';
import { useHref, useSite } from './site.js';

/** The frame of every page: a header with the sign-in state, the page, a footer. */
export function Layout({ title, children }: { title: string; children: ComponentChildren }) {
  const { appName, version, base, user, csrf } = useSite();
  const href = useHref();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title === appName ? appName : `${title} - ${appName}`}</title>
        <link rel="stylesheet" href={`${base}assets/hearth.css`} />
        <script type="module" src={`${base}assets/hearth.js`} />
      </head>
      <body>
        <header class="site">
          <a class="brand" href={base}>{appName}</a>
          <nav>
            <a href={href('explore', 'repos')}>Explore</a>
          </nav>
          <div class="account">
            {user ? (
              <>
                <a class="signed-in" href={href(user.name)}>{user.name}</a>
                <form method="post" action={href('user', 'logout')}>
                  <input type="hidden" name="_csrf" value={csrf} />
                  <button type="submit">Sign out</button>
                </form>
              </>
            ) : (
              <a href={href('user', 'login')}>Sign in</a>
            )}
          </div>
        </header>
        <main>{children}</main>
        <footer class="site">
          <span>Powered by Hearth, Gitea API version {version}</span>
          <a href={href('api', 'swagger')}>API</a>
          <a href={`${base}swagger.v1.json`}>OpenAPI</a>
        </footer>
      </body>
    </html>
  );
}

/** The answer for what does not exist or what the visitor may not see: the same page either way. */
export function NotFound() {
  const { base } = useSite();
  return (
    <section class="message">
      <h1>Page not found</h1>
      <p>The page you asked for does not exist, or you are not allowed to see it.</p>
      <p><a href={base}>Go to the front page</a></p>
    </section>
  );
}

export function ErrorMessage({ title, text }: { title: string; text: string }) {
  return (
    <section class="message">
      <h1>{title}</h1>
      <p>{text}</p>
    </section>
  );
}

/** The hidden field every form carries. */
export function Csrf() {
  return <input type="hidden" name="_csrf" value={useSite().csrf} />;
}

/** Previous and next links of a paged list, keeping the other query parameters. */
export function Pager({ page, pages, query }: { page: number; pages: number; query: Record<string, string> }) {
  if (pages <= 1) return null;
  const at = (n: number): string => `?${new URLSearchParams({ ...query, page: String(n) }).toString()}`;
  return (
    <nav class="pager">
      {page > 1 ? <a rel="prev" href={at(page - 1)}>Previous</a> : null}
      <span>Page {page} of {pages}</span>
      {page < pages ? <a rel="next" href={at(page + 1)}>Next</a> : null}
    </nav>
  );
}
