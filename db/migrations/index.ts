import { Foundation1732000000000 } from './1732000000000-foundation.js';
import { TokenScopes1732000000001 } from './1732000000001-token-scopes.js';
import { Repositories1732000001000 } from './1732000001000-repositories.js';
import { ReleasesStatuses1732000001500 } from './1732000001500-releases-statuses.js';

/** In order. A new migration is appended here. */
export const migrations = [
  Foundation1732000000000,
  TokenScopes1732000000001,
  Repositories1732000001000,
  ReleasesStatuses1732000001500,
];
