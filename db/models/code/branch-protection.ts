import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, isUniqueViolation, locked, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { compileGlob, escapeRegExp } from '../../glob.js';
import { updateRow } from '../../sql.js';
import { accessModeOf } from '../access.js';
import { accessModes, type AccessMode, type RepoRow } from '../repos/repo-row.js';
import { toUserRow, type UserRow } from '../users/user-row.js';
import { isGlobRule } from './glob-rule.js';

export { isGlobRule };

/** A row of the `protected_branch` table: one rule, naming a branch or a glob of branch names. */
export interface ProtectionRow {
  id: number;
  repo_id: number;
  rule_name: string;
  can_push: boolean;
  enable_whitelist: boolean;
  whitelist_user_ids: number[];
  whitelist_team_ids: number[];
  whitelist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_user_ids: number[];
  merge_whitelist_team_ids: number[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  enable_approvals_whitelist: boolean;
  approvals_whitelist_user_ids: number[];
  approvals_whitelist_team_ids: number[];
  required_approvals: number;
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  created: Date;
  updated: Date;
}

/** The fields of Gitea's Create/EditBranchProtectionOption that Hearth keeps. */
export interface ProtectionInput {
  enable_push?: boolean;
  enable_push_whitelist?: boolean;
  push_whitelist_usernames?: string[];
  push_whitelist_teams?: string[];
  merge_whitelist_teams?: string[];
  approvals_whitelist_teams?: string[];
  push_whitelist_deploy_keys?: boolean;
  enable_merge_whitelist?: boolean;
  merge_whitelist_usernames?: string[];
  enable_status_check?: boolean;
  status_check_contexts?: string[];
  required_approvals?: number;
  enable_approvals_whitelist?: boolean;
  approvals_whitelist_username?: string[];
  block_on_rejected_reviews?: boolean;
  block_on_official_review_requests?: boolean;
  block_on_outdated_branch?: boolean;
  dismiss_stale_approvals?: boolean;
  ignore_stale_approvals?: boolean;
  require_signed_commits?: boolean;
  protected_file_patterns?: string;
  unprotected_file_patterns?: string;
}

const idArrays = [
  'whitelist_user_ids', 'whitelist_team_ids', 'merge_whitelist_user_ids', 'merge_whitelist_team_ids',
  'approvals_whitelist_user_ids', 'approvals_whitelist_team_ids',
] as const;

/** pg reads bigint[] as strings. */
function toProtectionRow(raw: Record<string, unknown>): ProtectionRow {
  const row = { ...(raw as unknown as ProtectionRow) };
  for (const column of idArrays) row[column] = ((raw[column] as unknown[]) ?? []).map(Number);
  return row;
}

// ---------------------------------------------------------------- matching

/** A rule or file pattern, `/` separating segments; one that does not compile matches itself literally, as in Gitea. */
export function rulePattern(glob: string): RegExp {
  return compileGlob(glob, '/') ?? new RegExp(`^${escapeRegExp(glob)}$`);
}

/** Gitea's getFilePatterns: `;`-separated globs, lower-cased, with `.` and `/` separating; invalid ones are skipped. */
export function filePatterns(text: string): RegExp[] {
  return text.split(';').map((p) => p.trim().toLowerCase()).filter(Boolean)
    .map((p) => compileGlob(p, './')).filter((pattern): pattern is RegExp => pattern !== null);
}

/** Gitea's IsProtectedFile and IsUnprotectedFile: the path, trimmed and lower-cased, matches one of the patterns. */
export function matchesFilePattern(patterns: RegExp[], path: string): boolean {
  const lower = path.trim().toLowerCase();
  return patterns.some((pattern) => pattern.test(lower));
}

const compiled = new Map<string, RegExp>();

/** A plain rule names one branch (compared without case, as Gitea does); a glob rule matches by pattern. */
export function ruleMatches(ruleName: string, branch: string): boolean {
  if (!isGlobRule(ruleName)) return ruleName.toLowerCase() === branch.toLowerCase();
  let pattern = compiled.get(ruleName);
  if (!pattern) {
    if (compiled.size > 1000) compiled.clear();
    pattern = rulePattern(ruleName);
    compiled.set(ruleName, pattern);
  }
  return pattern.test(branch);
}

/** The rule that governs `branch`: exact-name rules first, then globs, each in creation order. */
export function effectiveProtection(rules: ProtectionRow[], branch: string): ProtectionRow | null {
  const ordered = [...rules].sort(
    (a, b) => Number(isGlobRule(a.rule_name)) - Number(isGlobRule(b.rule_name)) || a.created.getTime() - b.created.getTime() || a.id - b.id,
  );
  return ordered.find((rule) => ruleMatches(rule.rule_name, branch)) ?? null;
}

// ---------------------------------------------------------------- who may do what

/**
 * Gitea's CanUserPush under a rule (without one, write access to the code): the rule must allow pushing; then either
 * anyone who writes the code, or the push whitelist's users and teams. `codeMode` is the user's mode in the code unit.
 */
export function canUserPush(rule: ProtectionRow | null, user: UserRow | null, codeMode: AccessMode, teamIds: number[] = []): boolean {
  if (!user) return false;
  if (!rule) return codeMode >= accessModes.write;
  if (!rule.can_push) return false;
  if (!rule.enable_whitelist) return codeMode >= accessModes.write;
  return rule.whitelist_user_ids.includes(user.id) || teamIds.some((id) => rule.whitelist_team_ids.includes(id));
}

/** Gitea's pre-receive rule for deploy keys: the rule must allow pushing, and list deploy keys when it has a whitelist. */
export function canDeployKeyPush(rule: ProtectionRow, mode: AccessMode): boolean {
  return rule.can_push && mode >= accessModes.write && (!rule.enable_whitelist || rule.whitelist_deploy_keys);
}

/**
 * Gitea's IsUserAllowedToMerge (with IsUserMergeWhitelisted): who may merge into a branch. Without a rule, or under a
 * rule without a merge whitelist, whoever writes the code; with the whitelist, only its users and its teams' members.
 */
export function isUserAllowedToMerge(rule: ProtectionRow | null, user: UserRow | null, codeMode: AccessMode, teamIds: number[] = []): boolean {
  if (!user) return false;
  if (!rule || !rule.enable_merge_whitelist) return codeMode >= accessModes.write;
  return rule.merge_whitelist_user_ids.includes(user.id) || teamIds.some((id) => rule.merge_whitelist_team_ids.includes(id));
}

/**
 * isUserAllowedToMerge for `branch` of `repo` as its rules and the user's code mode and teams are now; `rules`, the
 * repository's rules when the caller has read them in the same transaction.
 */
export async function mayMergeInto(db: Queryable, repo: RepoRow, branch: string, user: UserRow, rules?: ProtectionRow[]): Promise<boolean> {
  const rule = effectiveProtection(rules ?? (await listProtections(db, repo.id)), branch);
  const teamIds = rule ? await whitelistedTeamIds(db, user, [rule]) : [];
  return isUserAllowedToMerge(rule, user, await accessModeOf(db, user, repo, 'repo.code'), teamIds);
}

/** The teams of `user` that whitelists in `rules` name (none queried when no rule names a team). */
export async function whitelistedTeamIds(db: Queryable, user: UserRow | null, rules: ProtectionRow[]): Promise<number[]> {
  const named = new Set(rules.flatMap((r) => [...r.whitelist_team_ids, ...r.merge_whitelist_team_ids, ...r.approvals_whitelist_team_ids]));
  if (!user || named.size === 0) return [];
  const rows = await db.query<{ team_id: number }>('SELECT team_id FROM team_user WHERE uid = $1 AND team_id = ANY($2::bigint[])', [user.id, [...named]]);
  return rows.map((row) => Number(row.team_id));
}

/** Team names by id, for rendering rules. */
export async function teamNamesOf(db: Queryable, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: number; name: string }>('SELECT id, name FROM team WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}

export interface RefUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
}

export const isZeroSha = (sha: string): boolean => /^0+$/.test(sha);

/** Who pushes: a user, or a deploy key (pushing as its repository's owner, allowed by a rule only when it lists deploy keys). */
export interface Pusher {
  user: UserRow;
  deployKey: boolean;
}

export interface PushVerdict {
  /** Refused ref → the message the git client prints. */
  refusals: Map<string, string>;
  /** Protected branches this push updates: the update must be a fast-forward, checked once the objects arrived. */
  fastForwardOnly: string[];
  /**
   * Protected branches this push updates whose answer depends on the paths it changes, decided by pushedPathsRefusal
   * once the objects arrived: a rule with protected files, or a pusher the rule does not let push under a rule with
   * unprotected files. Such a pusher's ref also stays in `refusals`, so a caller that cannot check paths refuses it.
   */
  fileChecks: Map<string, PathCheck>;
}

/** What a push's changed paths are checked against: the branch, its rule, and whether the rule lets the pusher push. */
export interface PathCheck {
  branch: string;
  rule: ProtectionRow;
  canPush: boolean;
}

/**
 * What branch protection says about a push, decided from its commands alone (Gitea's pre-receive checks):
 * the default branch is never deleted, a protected branch is neither deleted nor pushed to by someone the
 * rule does not allow, and pull-request refs belong to the server. Force pushes need the objects, so the
 * protected refs that are updated are returned for a fast-forward check after the pack is unpacked.
 */
export async function judgePush(db: Queryable, repo: RepoRow, pusher: Pusher, mode: AccessMode, commands: RefUpdate[]): Promise<PushVerdict> {
  const { user } = pusher;
  const verdict: PushVerdict = { refusals: new Map(), fastForwardOnly: [], fileChecks: new Map() };
  const branchCommands = commands.filter((c) => c.ref.startsWith('refs/heads/'));
  const rules = branchCommands.length ? await listProtections(db, repo.id) : [];
  const teamIds = await whitelistedTeamIds(db, user, rules);
  for (const command of commands) {
    if (command.ref.startsWith('refs/pull/')) {
      verdict.refusals.set(command.ref, 'refs/pull/* is read-only');
      continue;
    }
    if (!command.ref.startsWith('refs/heads/')) continue;
    const branch = command.ref.slice('refs/heads/'.length);
    const deleting = isZeroSha(command.newSha);
    if (deleting && branch === repo.default_branch) {
      verdict.refusals.set(command.ref, `branch ${branch} is the default branch and cannot be deleted`);
      continue;
    }
    const rule = effectiveProtection(rules, branch);
    if (!rule) continue;
    if (deleting) {
      verdict.refusals.set(command.ref, `branch ${branch} is protected from deletion`);
      continue;
    }
    const canPush = pusher.deployKey ? canDeployKeyPush(rule, mode) : canUserPush(rule, user, mode, teamIds);
    if (!canPush) verdict.refusals.set(command.ref, `Not allowed to push to protected branch ${branch}`);
    // a new branch is not checked for paths (Gitea diffs it from where it leaves its base); it must not bypass a refusal
    if (isZeroSha(command.oldSha)) continue;
    // a deploy key is not on any whitelist: the unprotected file patterns lift nothing for it
    const byPaths = canPush ? filePatterns(rule.protected_file_patterns).length > 0 : !pusher.deployKey && filePatterns(rule.unprotected_file_patterns).length > 0;
    if (canPush || byPaths) verdict.fastForwardOnly.push(command.ref);
    if (byPaths) verdict.fileChecks.set(command.ref, { branch, rule, canPush });
  }
  return verdict;
}

/**
 * Gitea's pre-receive checks of a protected branch's changed paths (`paths` in git's order): no protected file may
 * change; a pusher the rule does not let push may still push commits that change unprotected files only. The refusal
 * the client is told, or null.
 */
export function pushedPathsRefusal({ branch, rule, canPush }: PathCheck, paths: string[]): string | null {
  const protectedFiles = filePatterns(rule.protected_file_patterns);
  const changed = paths.find((path) => matchesFilePattern(protectedFiles, path));
  if (changed !== undefined) return `branch ${branch} is protected from changing file ${changed}`;
  if (canPush) return null;
  const unprotected = filePatterns(rule.unprotected_file_patterns);
  if (unprotected.length > 0 && paths.every((path) => matchesFilePattern(unprotected, path))) return null;
  return `Not allowed to push to protected branch ${branch}`;
}

// ---------------------------------------------------------------- reading and writing rules

export async function listProtections(db: Queryable, repoId: number): Promise<ProtectionRow[]> {
  const rows = await db.query('SELECT * FROM protected_branch WHERE repo_id = $1 ORDER BY created, id', [repoId]);
  return rows.map(toProtectionRow);
}

export async function getProtection(db: Queryable, repoId: number, ruleName: string): Promise<ProtectionRow> {
  const [row] = await db.query('SELECT * FROM protected_branch WHERE repo_id = $1 AND rule_name = $2', [repoId, ruleName]);
  if (!row) throw notFound(`branch protection ${ruleName} does not exist`);
  return toProtectionRow(row);
}

/**
 * Gitea's whitelist update: every name must be a user (else 422); only those with at least `needed` access
 * to the repository are kept, the others are dropped silently.
 */
async function whitelistIds(tx: Queryable, repo: RepoRow, names: string[], needed: AccessMode): Promise<number[]> {
  const wanted = [...new Set(names.map((n) => n.toLowerCase()))];
  if (wanted.length === 0) return [];
  const rows = await tx.query('SELECT * FROM "user" WHERE lower_name = ANY($1::text[]) AND type = 0', [wanted]);
  const users = rows.map(toUserRow);
  const missing = names.find((name) => !users.some((u) => u.lower_name === name.toLowerCase()));
  if (missing !== undefined) throw invalid(`user does not exist [name: ${missing}]`);
  const kept: number[] = [];
  for (const user of users) if ((await accessModeOf(tx, user, repo)) >= needed) kept.push(user.id);
  return kept;
}

/** Gitea's team whitelist update: teams of the owning organization by name (422 for an unknown one); ignored for a user's repository. */
async function teamWhitelistIds(tx: Queryable, repo: RepoRow, names: string[]): Promise<number[]> {
  const wanted = [...new Set(names.map((n) => n.toLowerCase()))];
  if (wanted.length === 0) return [];
  const [owner] = await tx.query<{ type: number }>('SELECT type FROM "user" WHERE id = $1', [repo.owner_id]);
  if (owner?.type !== 1) return [];
  const rows = await tx.query<{ id: number; lower_name: string }>(
    'SELECT id, lower_name FROM team WHERE org_id = $1 AND lower_name = ANY($2::text[])',
    [repo.owner_id, wanted],
  );
  const missing = wanted.find((name) => !rows.some((row) => row.lower_name === name));
  if (missing !== undefined) throw invalid(`team does not exist [name: ${missing}]`);
  return rows.map((row) => Number(row.id));
}

type Columns = Partial<Omit<ProtectionRow, 'id' | 'repo_id' | 'rule_name' | 'created' | 'updated'>>;

/** The columns an edit changes, with Gitea's coupling: no push means no whitelist, no whitelist means no deploy keys. */
async function columnsOf(tx: Queryable, repo: RepoRow, input: ProtectionInput): Promise<Columns> {
  const next: Columns = {};
  if (input.enable_push !== undefined) {
    next.can_push = input.enable_push;
    if (!input.enable_push) {
      next.enable_whitelist = false;
      next.whitelist_deploy_keys = false;
    } else if (input.enable_push_whitelist !== undefined) {
      next.enable_whitelist = input.enable_push_whitelist;
      if (!input.enable_push_whitelist) next.whitelist_deploy_keys = false;
      else if (input.push_whitelist_deploy_keys !== undefined) next.whitelist_deploy_keys = input.push_whitelist_deploy_keys;
    }
  }
  const flags = [
    'enable_merge_whitelist', 'enable_status_check', 'enable_approvals_whitelist', 'block_on_rejected_reviews',
    'block_on_official_review_requests', 'block_on_outdated_branch', 'dismiss_stale_approvals', 'ignore_stale_approvals',
    'require_signed_commits',
  ] as const;
  for (const flag of flags) if (input[flag] !== undefined) next[flag] = input[flag];
  if (input.status_check_contexts !== undefined) next.status_check_contexts = input.status_check_contexts;
  if (input.required_approvals !== undefined && input.required_approvals >= 0) next.required_approvals = input.required_approvals;
  if (input.protected_file_patterns !== undefined) next.protected_file_patterns = input.protected_file_patterns;
  if (input.unprotected_file_patterns !== undefined) next.unprotected_file_patterns = input.unprotected_file_patterns;
  if (input.push_whitelist_usernames !== undefined) {
    next.whitelist_user_ids = await whitelistIds(tx, repo, input.push_whitelist_usernames, accessModes.write);
  }
  if (input.merge_whitelist_usernames !== undefined) {
    next.merge_whitelist_user_ids = await whitelistIds(tx, repo, input.merge_whitelist_usernames, accessModes.write);
  }
  if (input.approvals_whitelist_username !== undefined) {
    next.approvals_whitelist_user_ids = await whitelistIds(tx, repo, input.approvals_whitelist_username, accessModes.read);
  }
  if (input.push_whitelist_teams !== undefined) next.whitelist_team_ids = await teamWhitelistIds(tx, repo, input.push_whitelist_teams);
  if (input.merge_whitelist_teams !== undefined) next.merge_whitelist_team_ids = await teamWhitelistIds(tx, repo, input.merge_whitelist_teams);
  if (input.approvals_whitelist_teams !== undefined) {
    next.approvals_whitelist_team_ids = await teamWhitelistIds(tx, repo, input.approvals_whitelist_teams);
  }
  return next;
}

/** Gitea's mustNotBeArchived: 423 Locked. */
export function assertNotArchived(repo: RepoRow): void {
  if (repo.is_archived) throw locked('repo is archived');
}

/** Creates a rule; a rule of the same name in the repository answers 403, as in Gitea. */
export async function createProtection(tx: Tx, repo: RepoRow, doer: UserRow, ruleName: string, input: ProtectionInput): Promise<ProtectionRow> {
  const creation: ProtectionInput = {
    ...input,
    // On creation Gitea keeps the whitelist only when pushing is enabled at all.
    enable_push: input.enable_push ?? false,
    enable_push_whitelist: (input.enable_push ?? false) && (input.enable_push_whitelist ?? false),
  };
  const columns = await columnsOf(tx, repo, creation);
  const names = Object.keys(columns);
  let row: Record<string, unknown>;
  try {
    [row] = await tx.query(
      `INSERT INTO protected_branch (repo_id, rule_name${names.map((n) => `, "${n}"`).join('')})
       VALUES ($1, $2${names.map((_, i) => `, $${i + 3}`).join('')}) RETURNING *`,
      [repo.id, ruleName, ...names.map((n) => columns[n as keyof Columns])],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw forbidden('Branch protection already exist');
    throw error;
  }
  await emit(tx, { kind: 'branch_protection.created', repoId: repo.id, doerId: doer.id, payload: { protection_id: Number(row.id), rule_name: ruleName } });
  return toProtectionRow(row);
}

/** Changes only the fields that are set. */
export async function editProtection(tx: Tx, repo: RepoRow, doer: UserRow, rule: ProtectionRow, input: ProtectionInput): Promise<ProtectionRow> {
  const row = await updateRow(tx, 'protected_branch', rule.id, await columnsOf(tx, repo, input));
  if (!row) throw notFound();
  await emit(tx, { kind: 'branch_protection.edited', repoId: repo.id, doerId: doer.id, payload: { protection_id: rule.id, rule_name: rule.rule_name } });
  return toProtectionRow(row);
}

export async function deleteProtection(tx: Tx, repo: RepoRow, doer: UserRow, ruleName: string): Promise<void> {
  const deleted = await tx.query<{ id: number }>('DELETE FROM protected_branch WHERE repo_id = $1 AND rule_name = $2 RETURNING id', [repo.id, ruleName]);
  if (deleted.length === 0) throw notFound(`branch protection ${ruleName} does not exist`);
  await emit(tx, { kind: 'branch_protection.deleted', repoId: repo.id, doerId: doer.id, payload: { protection_id: deleted[0].id, rule_name: ruleName } });
}
