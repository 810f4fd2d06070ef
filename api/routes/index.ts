import type { RouteDefinition } from '../http/route.js';
import { adminUserRoutes } from './admin-users.js';
import { miscRoutes } from './misc.js';
import { repoRoutes } from './repos.js';
import { tokenRoutes } from './tokens.js';
import { userRoutes } from './users.js';
import { releaseRoutes } from './releases.js';
import { releaseAssetRoutes } from './release-assets.js';
import { commitStatusRoutes } from './commit-statuses.js';
import { collaboratorRoutes } from './collaborators.js';
import { starRoutes } from './stars.js';
import { watchRoutes } from './watches.js';
import { topicRoutes } from './topics.js';
import { repoSearchRoutes } from './repo-search.js';
import { deployKeyRoutes } from './deploy-keys.js';
import { repoAvatarRoutes } from './repo-avatar.js';
import { activityFeedRoutes } from './activity-feeds.js';
import { branchRoutes } from './branches.js';
import { orgRoutes } from './orgs.js';
import { teamRoutes } from './teams.js';
import { orgLabelRoutes } from './org-labels.js';
import { gitDataRoutes } from './git-data.js';
import { contentsRoutes } from './contents.js';
import { tagRoutes } from './tags.js';
import { forkRoutes } from './forks.js';
import { generateRoutes } from './generate.js';
import { transferRoutes } from './transfers.js';
import { templateInfoRoutes } from './templates-info.js';
import { unadoptedRoutes } from './unadopted.js';
import { userKeyRoutes } from './user-keys.js';
import { gpgKeyRoutes } from './gpg-keys.js';
import { userBlockRoutes } from './user-blocks.js';
import { userAvatarRoutes } from './user-avatar.js';
import { badgeRoutes } from './badges.js';
import { markupRoutes } from './markup.js';
import { nodeInfoRoutes } from './nodeinfo.js';
import { signingKeyRoutes } from './signing-key.js';
import { adminCronRoutes } from './admin-cron.js';
import { oauth2AppRoutes } from './oauth2-apps.js';
import { heatmapRoutes } from './heatmap.js';
import { userFeedRoutes } from './user-feeds.js';

/** Every /api/v1 route, in one table. An area adds its list here. */
export const apiRoutes: RouteDefinition[] = [...miscRoutes, ...userRoutes, ...tokenRoutes, ...adminUserRoutes, ...repoRoutes, ...releaseRoutes, ...releaseAssetRoutes, ...commitStatusRoutes,
  ...collaboratorRoutes, ...starRoutes, ...watchRoutes, ...topicRoutes, ...repoSearchRoutes, ...deployKeyRoutes, ...repoAvatarRoutes, ...activityFeedRoutes,
  ...branchRoutes, ...orgRoutes, ...teamRoutes, ...orgLabelRoutes, ...gitDataRoutes, ...contentsRoutes, ...tagRoutes,
  ...forkRoutes, ...generateRoutes, ...transferRoutes, ...templateInfoRoutes, ...unadoptedRoutes,
  ...userKeyRoutes, ...gpgKeyRoutes, ...userBlockRoutes, ...userAvatarRoutes, ...badgeRoutes, ...markupRoutes, ...nodeInfoRoutes, ...signingKeyRoutes,
  ...adminCronRoutes, ...oauth2AppRoutes, ...heatmapRoutes, ...userFeedRoutes];
