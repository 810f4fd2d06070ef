import type { RouteDefinition } from '../http/route.js';
import { adminUserRoutes } from './users/admin-users.js';
import { miscRoutes } from './instance/misc.js';
import { repoRoutes } from './repos/repos.js';
import { tokenRoutes } from './users/tokens.js';
import { userRoutes } from './users/users.js';
import { releaseRoutes } from './releases/releases.js';
import { releaseAssetRoutes } from './releases/release-assets.js';
import { commitStatusRoutes } from './code/commit-statuses.js';
import { collaboratorRoutes } from './repos/collaborators.js';
import { starRoutes } from './repos/stars.js';
import { watchRoutes } from './repos/watches.js';
import { topicRoutes } from './repos/topics.js';
import { repoSearchRoutes } from './repos/repo-search.js';
import { deployKeyRoutes } from './repos/deploy-keys.js';
import { repoAvatarRoutes } from './repos/repo-avatar.js';
import { activityFeedRoutes } from './activity/activity-feeds.js';
import { branchRoutes } from './code/branches.js';
import { orgRoutes } from './orgs/orgs.js';
import { teamRoutes } from './orgs/teams.js';
import { orgLabelRoutes } from './orgs/org-labels.js';
import { gitDataRoutes } from './code/git-data.js';
import { contentsRoutes } from './code/contents.js';
import { tagRoutes } from './code/tags.js';
import { forkRoutes } from './repos/forks.js';
import { generateRoutes } from './repos/generate.js';
import { transferRoutes } from './repos/transfers.js';
import { templateInfoRoutes } from './repos/templates-info.js';
import { unadoptedRoutes } from './repos/unadopted.js';
import { userKeyRoutes } from './users/user-keys.js';
import { gpgKeyRoutes } from './users/gpg-keys.js';
import { userBlockRoutes } from './users/user-blocks.js';
import { userAvatarRoutes } from './users/user-avatar.js';
import { badgeRoutes } from './users/badges.js';
import { markupRoutes } from './instance/markup.js';
import { nodeInfoRoutes } from './instance/nodeinfo.js';
import { signingKeyRoutes } from './instance/signing-key.js';
import { adminCronRoutes } from './instance/admin-cron.js';
import { adminQueueRoutes } from './instance/admin-queues.js';
import { oauth2AppRoutes } from './users/oauth2-apps.js';
import { heatmapRoutes } from './activity/heatmap.js';
import { userFeedRoutes } from './activity/user-feeds.js';
import { mirrorRoutes } from './mirrors/mirrors.js';
import { packageRoutes } from './packages/packages.js';
import { issueRoutes } from './issues/issues.js';
import { reactionRoutes } from './issues/reactions.js';
import { dependencyRoutes } from './issues/dependencies.js';
import { issueSubscriptionRoutes } from './issues/subscriptions.js';
import { trackedTimeRoutes } from './issues/tracked-times.js';
import { issueAttachmentRoutes } from './issues/issue-attachments.js';
import { labelRoutes } from './issues/labels.js';
import { milestoneRoutes } from './issues/milestones.js';
import { commentRoutes, timelineRoutes } from './issues/comments.js';
import { pinRoutes } from './issues/pins.js';
import { issueTemplateRoutes } from './issues/templates.js';
import { issueSearchRoutes } from './issues/search.js';
import { hookRoutes } from './hooks/hooks.js';
import { notificationRoutes } from './notifications/notifications.js';
import { actionsSecretRoutes } from './actions/secrets.js';
import { actionsVariableRoutes } from './actions/variables.js';
import { runnerTokenRoutes } from './actions/runner-tokens.js';
import { wikiRoutes } from './wiki/wiki.js';
import { actionRunRoutes } from './actions/runs.js';
import { actionRunnerRoutes } from './actions/runners.js';
import { reviewRoutes } from './reviews/reviews.js';
import { reviewRequestRoutes } from './reviews/review-requests.js';
import { autoMergeRoutes } from './reviews/auto-merge.js';
import { pullByBranchesRoutes, pullRoutes } from './pulls/pulls.js';
import { pullChangeRoutes } from './pulls/pull-changes.js';
import { pullMergeRoutes } from './pulls/pull-merge.js';

/** Every /api/v1 route, in one table. An area adds its list here. */
export const apiRoutes: RouteDefinition[] = [...miscRoutes, ...userRoutes, ...tokenRoutes, ...adminUserRoutes, ...repoRoutes, ...releaseRoutes, ...releaseAssetRoutes, ...commitStatusRoutes,
  ...collaboratorRoutes, ...starRoutes, ...watchRoutes, ...topicRoutes, ...repoSearchRoutes, ...deployKeyRoutes, ...repoAvatarRoutes, ...activityFeedRoutes,
  ...branchRoutes, ...orgRoutes, ...teamRoutes, ...orgLabelRoutes, ...gitDataRoutes, ...contentsRoutes, ...tagRoutes,
  ...forkRoutes, ...generateRoutes, ...transferRoutes, ...templateInfoRoutes, ...unadoptedRoutes,
  ...userKeyRoutes, ...gpgKeyRoutes, ...userBlockRoutes, ...userAvatarRoutes, ...badgeRoutes, ...markupRoutes, ...nodeInfoRoutes, ...signingKeyRoutes,
  ...adminCronRoutes, ...adminQueueRoutes, ...oauth2AppRoutes, ...heatmapRoutes, ...userFeedRoutes, ...mirrorRoutes, ...packageRoutes,
  ...issueRoutes, ...labelRoutes, ...milestoneRoutes, ...commentRoutes, ...timelineRoutes, ...pinRoutes, ...issueTemplateRoutes, ...issueSearchRoutes,
  ...reactionRoutes, ...dependencyRoutes, ...issueSubscriptionRoutes, ...trackedTimeRoutes, ...issueAttachmentRoutes,
  ...hookRoutes, ...notificationRoutes,
  ...actionsSecretRoutes, ...actionsVariableRoutes, ...runnerTokenRoutes, ...actionRunRoutes, ...actionRunnerRoutes,
  ...wikiRoutes,
  // pullByBranchesRoutes (/pulls/{base}/{head}) must come after every other /pulls/{index}/… route
  ...reviewRoutes, ...reviewRequestRoutes, ...autoMergeRoutes, ...pullChangeRoutes, ...pullMergeRoutes, ...pullRoutes, ...pullByBranchesRoutes,
];
