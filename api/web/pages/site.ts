import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { UserRow } from '../../../db/models/users/user-row.js';

/** What every part of a page may need: the instance, the signed-in user, the form token. */
export interface Site {
  appName: string;
  /** The Gitea API version the instance speaks. */
  version: string;
  /** The root URL's path, `/` or a sub-path such as `/git/`; every link starts with it. */
  base: string;
  user: UserRow | null;
  csrf: string;
}

export const SiteContext = createContext<Site>({ appName: 'Hearth', version: '', base: '/', user: null, csrf: '' });

export const useSite = (): Site => useContext(SiteContext);

/** A link to a path of this instance: each segment percent-encoded, under the root URL's path. */
export function useHref(): (...segments: Array<string | number>) => string {
  const { base } = useSite();
  return (...segments) => `${base}${segments.map((segment) => encodeURIComponent(String(segment))).join('/')}`;
}
