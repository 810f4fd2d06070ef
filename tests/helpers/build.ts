import { branch, commit } from './factories/code.js';
import { hook } from './factories/hooks.js';
import { org, team } from './factories/orgs.js';
import { issue } from './factories/issues.js';
import { release } from './factories/releases.js';
import { repo } from './factories/repos.js';
import { user } from './factories/users.js';

/**
 * Factories: each builds one aggregate through the model operations, in one transaction, with defaults a test
 * may override, and returns its row. One module per area under factories/, as in db/models.
 */
export const build = { user, org, team, repo, branch, commit, release, issue, hook };
