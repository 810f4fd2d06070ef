import { compileGlob } from '../../glob.js';

/** Gitea's webhook event types (HookEventType), in the order Gitea lists a hook's events. */
export const hookEventTypes = [
  'create', 'delete', 'fork', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment', 'push',
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment', 'pull_request_sync',
  'wiki', 'repository', 'release', 'package', 'pull_request_review_request',
] as const;
export type HookEventType = (typeof hookEventTypes)[number];

const issueEvents: HookEventType[] = ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'];
const pullEvents: HookEventType[] = [
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment', 'pull_request_sync',
  'pull_request_review_request',
];

/**
 * The names a CreateHookOption/EditHookOption may list: every event type, plus Gitea's group names. `issues` and
 * `pull_request` choose their whole group; `issues_only`, `pull_request_only` the base event; `pull_request_review`
 * the approved, rejected and comment review events.
 */
const aliases: Record<string, HookEventType[]> = {
  issues: issueEvents,
  issues_only: ['issues'],
  issue_comment: ['issue_comment'],
  pull_request: pullEvents,
  pull_request_only: ['pull_request'],
  pull_request_review: ['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'],
};

/** The event types a hook chooses from the names given (push only when none), or the first unknown name. */
export function chooseEvents(names: string[]): { events: HookEventType[] } | { unknown: string } {
  const chosen = new Set<HookEventType>();
  for (const raw of names.length ? names : ['push']) {
    const name = raw.trim().toLowerCase();
    const group = aliases[name] ?? ((hookEventTypes as readonly string[]).includes(name) ? [name as HookEventType] : null);
    if (!group) return { unknown: raw };
    for (const type of group) chosen.add(type);
  }
  return { events: hookEventTypes.filter((type) => chosen.has(type)) };
}

/** The `X-Gitea-Event` name of an event type (HookEventType.Event()). */
export function eventHeader(type: HookEventType): string {
  switch (type) {
    case 'issues': case 'issue_assign': case 'issue_label': case 'issue_milestone':
      return 'issues';
    case 'pull_request': case 'pull_request_assign': case 'pull_request_label': case 'pull_request_milestone':
    case 'pull_request_sync': case 'pull_request_review_request':
      return 'pull_request';
    case 'issue_comment': case 'pull_request_comment':
      return 'issue_comment';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return type;
  }
}

/** What decides which events a hook receives. */
export interface HookEventChoice {
  push_only: boolean;
  send_everything: boolean;
  choose_events: boolean;
  events: string[];
}

export function hookWants(hook: HookEventChoice, type: HookEventType): boolean {
  if (hook.send_everything) return true;
  if (type === 'push' && hook.push_only) return true;
  return hook.choose_events && hook.events.includes(type);
}

/** The event types a hook receives, as its API answer lists them. */
export function eventsOf(hook: HookEventChoice): HookEventType[] {
  return hookEventTypes.filter((type) => hookWants(hook, type));
}

/** A branch filter Gitea accepts: empty, `*`, or a glob that compiles. */
export function isValidBranchFilter(filter: string): boolean {
  return filter === '' || filter === '*' || compileGlob(filter) !== null;
}

/** Gitea's checkBranch: no filter or `*` passes everything; otherwise the branch must match the glob. */
export function branchPasses(filter: string, branch: string): boolean {
  if (filter === '' || filter === '*') return true;
  return compileGlob(filter)?.test(branch) ?? false;
}
