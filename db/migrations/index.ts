import { Foundation1732000000000 } from './1732000000000-foundation.js';
import { TokenScopes1732000000001 } from './1732000000001-token-scopes.js';

/** In order. A new migration is appended here. */
export const migrations = [Foundation1732000000000, TokenScopes1732000000001];
