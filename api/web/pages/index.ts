import type { PageDefinition } from '../page.js';
import { adminPages } from './admin.js';
import { explorePages } from './explore.js';
import { historyPages } from './history.js';
import { issuePages } from './issue.js';
import { issueListPages } from './issue-lists.js';
import { oauth2AuthorizePages } from './oauth2-authorize.js';
import { ownerPages } from './owner.js';
import { repoHomePages } from './repo-home.js';
import { signInPages } from './sign-in.js';
import { sourcePages } from './source.js';

/** The web face's page table, beside the API's route table; mounted after /api/v1, git and the download routes. */
export const webPages: PageDefinition[] = [
  ...signInPages, ...oauth2AuthorizePages, ...explorePages, ...adminPages, ...ownerPages, ...repoHomePages, ...issuePages, ...sourcePages, ...historyPages, ...issueListPages,
];
