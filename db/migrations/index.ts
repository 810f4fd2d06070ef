import { Foundation1732000000000 } from './1732000000000-foundation.js';
import { TokenScopes1732000000001 } from './1732000000001-token-scopes.js';
import { Repositories1732000001000 } from './1732000001000-repositories.js';
import { ReleasesStatuses1732000001500 } from './1732000001500-releases-statuses.js';
import { BranchProtection1732000002000 } from './1732000002000-branch-protection.js';
import { StarsWatchesTopicsKeys1732000005000 } from './1732000005000-stars-watches-topics-keys.js';
import { RepoTransfers1732000006000 } from './1732000006000-repo-transfers.js';
import { Organizations1732000007000 } from './1732000007000-organizations.js';
import { UserExtras1732000008010 } from './1732000008010-user-extras.js';
import { Issues1732000010000 } from './1732000010000-issues.js';
import { Events1732000011000 } from './1732000011000-events.js';
import { IssueExtras1732000010500 } from './1732000010500-issue-extras.js';
import { PullRequests1732000012000 } from './1732000012000-pull-requests.js';
import { Reviews1732000012500 } from './1732000012500-reviews.js';
import { Mirrors1732000013000 } from './1732000013000-mirrors.js';
import { ActionsSecrets1732000014000 } from './1732000014000-actions-secrets.js';
import { ActionsRuns1732000014500 } from './1732000014500-actions-runs.js';
import { Packages1732000015000 } from './1732000015000-packages.js';
import { ContainerRegistry1732000015500 } from './1732000015500-container-registry.js';
import { ActionsBot1732000017000 } from './1732000017000-actions-bot.js';
import { MirrorLeases1732000017200 } from './1732000017200-mirror-leases.js';
import { OriginalService1732000018200 } from './1732000018200-original-service.js';
import { BranchHeadCommits1732000016200 } from './1732000016200-branch-head-commits.js';
import { IssueListOrder1732000016000 } from './1732000016000-issue-list-order.js';
import { EventMails1732000018400 } from './1732000018400-event-mails.js';
import { OperatorMetrics1732000019400 } from './1732000019400-operator-metrics.js';
import { CronTaskRuns1732000019600 } from './1732000019600-cron-task-runs.js';
import { WebSessions1732000019800 } from './1732000019800-web-sessions.js';
import { OAuth2Grants1732000020000 } from './1732000020000-oauth2-grants.js';

/** In order. A new migration is appended here. */
export const migrations = [
  Foundation1732000000000,
  TokenScopes1732000000001,
  Repositories1732000001000,
  ReleasesStatuses1732000001500,
  BranchProtection1732000002000,
  StarsWatchesTopicsKeys1732000005000,
  RepoTransfers1732000006000,
  Organizations1732000007000,
  UserExtras1732000008010,
  Issues1732000010000,
  IssueExtras1732000010500,
  Events1732000011000,
  PullRequests1732000012000,
  Reviews1732000012500,
  Mirrors1732000013000,
  ActionsSecrets1732000014000,
  ActionsRuns1732000014500,
  Packages1732000015000,
  ContainerRegistry1732000015500,
  ActionsBot1732000017000,
  MirrorLeases1732000017200,
  BranchHeadCommits1732000016200,
  IssueListOrder1732000016000,
  OriginalService1732000018200,
  EventMails1732000018400,
  OperatorMetrics1732000019400,
  CronTaskRuns1732000019600,
  WebSessions1732000019800,
  OAuth2Grants1732000020000,
];
