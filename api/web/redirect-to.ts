import type { Deps } from '../deps.js';

/**
 * A `redirect_to` the sign-in may follow: a path of this instance only (under the root URL's path, relative, no
 * scheme, no host, no `//` or backslash that a browser would read as another host). Anything else is null.
 */
export function sameSiteRedirect(deps: Deps, value: string | undefined): string | null {
  if (!value || value.length > 2000) return null;
  const root = new URL(deps.config.rootUrl);
  if (!value.startsWith(root.pathname) || !value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f]/.test(value)) return null;
  if (!URL.canParse(value, root)) return null;
  const target = new URL(value, root);
  if (target.origin !== root.origin) return null;
  return `${target.pathname}${target.search}${target.hash}`;
}
