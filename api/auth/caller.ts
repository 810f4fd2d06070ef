import type { UserRow } from '../../db/models/users/user-row.js';

export type AuthMethod = 'none' | 'token' | 'basic' | 'query' | 'proxy' | 'session';

/** Who is calling and how they proved it. Resolved once per request by the authentication middleware. */
export interface Caller {
  user: UserRow | null;
  method: AuthMethod;
  /** The token's stored scopes; `all` for every method that is not a token. */
  scope: string;
  tokenId: number | null;
}

export const anonymous: Caller = { user: null, method: 'none', scope: 'all', tokenId: null };
