import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { badRequest, notFound } from '../../../db/errors.js';
import {
  canUserMerge, canUserPush, createProtection, deleteProtection, editProtection, effectiveProtection, getProtection,
  listProtections, teamNamesOf, userNamesOf, whitelistedTeamIds, type ProtectionInput, type ProtectionRow,
} from '../../../db/models/code/branch-protection.js';
import {
  assertBranchesWritable, createBranch, deleteBranch, listBranchPage, userNamesByEmail,
} from '../../../db/models/code/branches.js';
import { ensureBranchRows } from '../../../db/models/code/push-sync.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import type { Deps } from '../../deps.js';
import { pageOf, paged } from '../../http/pagination.js';
import { created, noContent, ok, route, type Context } from '../../http/route.js';
import { doerOf } from '../../context/user.js';
import { renderBranch, renderBranchProtection, type BranchView } from '../../render/branch.js';
import { loadRepo, requireMode, type LoadedRepo } from '../../context/repo.js';

const createBranchBody = z.object({
  new_branch_name: z.string().min(1).max(100),
  old_branch_name: z.string().optional(),
  old_ref_name: z.string().optional(),
});

const names = z.array(z.string()).optional();
const flag = z.boolean().optional();
const protectionFields = {
  enable_push: flag, enable_push_whitelist: flag, push_whitelist_usernames: names, push_whitelist_teams: names,
  push_whitelist_deploy_keys: flag, enable_merge_whitelist: flag, merge_whitelist_usernames: names, merge_whitelist_teams: names,
  enable_status_check: flag, status_check_contexts: names, required_approvals: z.number().int().optional(),
  enable_approvals_whitelist: flag, approvals_whitelist_username: names, approvals_whitelist_teams: names,
  block_on_rejected_reviews: flag, block_on_official_review_requests: flag, block_on_outdated_branch: flag,
  dismiss_stale_approvals: flag, ignore_stale_approvals: flag, require_signed_commits: flag,
  protected_file_patterns: z.string().optional(), unprotected_file_patterns: z.string().optional(),
};
const editProtectionBody = z.object(protectionFields);
const createProtectionBody = z.object({ ...protectionFields, rule_name: z.string().max(255).optional(), branch_name: z.string().max(255).optional() });

const repoHtmlUrl = (deps: Deps, loaded: LoadedRepo): string => `${deps.config.rootUrl}${loaded.owner.name}/${loaded.repo.name}`;

/**
 * The named branches as git has them now (missing ones left out), in the order asked, with what the viewer may
 * do under the repository's protection rules (read here unless the caller already has them).
 */
async function branchViews(deps: Deps, loaded: LoadedRepo, branchNames: string[], protections?: ProtectionRow[]): Promise<BranchView[]> {
  if (branchNames.length === 0) return [];
  const [heads, rules] = await Promise.all([
    deps.git.open(loaded.repo).readHeads(branchNames),
    protections ?? listProtections(deps.db, loaded.repo.id),
  ]);
  const user = loaded.caller.user;
  const [usernames, teamIds] = await Promise.all([
    userNamesByEmail(deps.db, heads.flatMap((h) => [h.authorEmail, h.committerEmail])),
    whitelistedTeamIds(deps.db, user, rules),
  ]);
  const byName = new Map(heads.map((h) => [h.branch, h]));
  const writer = user !== null && loaded.mode >= accessModes.write;
  return branchNames.flatMap((name) => {
    const head = byName.get(name);
    if (!head) return [];
    const rule = effectiveProtection(rules, name);
    return [{
      head, rule, usernames, showRuleName: loaded.mode >= accessModes.admin,
      canPush: rule ? canUserPush(rule, user, loaded.mode, teamIds) : writer,
      canMerge: rule ? canUserMerge(rule, user, loaded.mode, teamIds) : writer,
    }];
  });
}

async function renderBranchNamed(deps: Deps, loaded: LoadedRepo, name: string) {
  const [view] = await branchViews(deps, loaded, [name]);
  if (!view) throw notFound(`branch ${name} does not exist`);
  return renderBranch(view, repoHtmlUrl(deps, loaded));
}

async function renderProtections(deps: Deps, rules: ProtectionRow[]) {
  const ids = rules.flatMap((r) => [...r.whitelist_user_ids, ...r.merge_whitelist_user_ids, ...r.approvals_whitelist_user_ids]);
  const teamIds = rules.flatMap((r) => [...r.whitelist_team_ids, ...r.merge_whitelist_team_ids, ...r.approvals_whitelist_team_ids]);
  const [userNames, teamNames] = await Promise.all([userNamesOf(deps.db, [...new Set(ids)]), teamNamesOf(deps.db, [...new Set(teamIds)])]);
  return rules.map((rule) => renderBranchProtection(rule, userNames, teamNames));
}

/** Repository administrators manage protection rules (Gitea's reqToken + reqAdmin). */
async function loadForProtections(deps: Deps, ctx: Context<unknown, unknown>): Promise<LoadedRepo> {
  const loaded = await loadRepo(deps, ctx.caller, ctx.params.owner, ctx.params.repo);
  requireMode(loaded, accessModes.admin);
  return loaded;
}

export const branchRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branches', operationId: 'repoListBranches', summary: "List a repository's branches", tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'BranchList' },
    handle: async (ctx) => {
      const { deps, caller, params } = ctx;
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      const page = pageOf(ctx.query as { page?: number; limit?: number });
      if (loaded.repo.is_empty) return paged([], 0, page, ctx.url);
      let { rows, total, protectedAny } = await listBranchPage(deps.db, loaded.repo.id, page);
      if (total === 0) {
        await inTx(deps, (tx) => ensureBranchRows(tx, deps.git, loaded.repo.id, caller.user?.id ?? null));
        ({ rows, total, protectedAny } = await listBranchPage(deps.db, loaded.repo.id, page));
      }
      const views = await branchViews(deps, loaded, rows.map((r) => r.name), protectedAny ? undefined : []);
      return paged(views.map((v) => renderBranch(v, repoHtmlUrl(deps, loaded))), total - (rows.length - views.length), page, ctx.url);
    },
  }),
  route<z.infer<typeof createBranchBody>>({
    method: 'post', path: '/repos/{owner}/{repo}/branches', operationId: 'repoCreateBranch', summary: 'Create a branch', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: createBranchBody,
    responses: { 201: 'Branch', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.write);
      assertBranchesWritable(loaded.repo);
      const [revision, missing] = body.old_ref_name
        ? [body.old_ref_name, 'The old ref does not exist']
        : [`refs/heads/${body.old_branch_name || loaded.repo.default_branch}`, 'The old branch does not exist'];
      const commit = await deps.git.open(loaded.repo).resolve(revision);
      if (!commit) throw notFound(missing);
      await inTx(deps, (tx) => createBranch(tx, deps.git, loaded.repo, doerOf(caller), body.new_branch_name, commit));
      return created(await renderBranchNamed(deps, loaded, body.new_branch_name));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branches/{branch}', rest: 'branch', operationId: 'repoGetBranch', tag: 'repository',
    summary: 'Retrieve a specific branch from a repository, including its effective branch protection',
    scope: 'read:repository', responses: { 200: 'Branch', 404: 'notFound' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      return ok(await renderBranchNamed(deps, loaded, params.branch));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/branches/{branch}', rest: 'branch', operationId: 'repoDeleteBranch', summary: 'Delete a specific branch from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 403: 'error', 404: 'notFound', 423: 'repoArchivedError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.write);
      assertBranchesWritable(loaded.repo);
      await inTx(deps, (tx) => deleteBranch(tx, deps.git, loaded.repo, doerOf(caller), params.branch));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branch_protections', operationId: 'repoListBranchProtection', summary: 'List branch protections for a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'BranchProtectionList' },
    handle: async (ctx) => {
      const loaded = await loadForProtections(ctx.deps, ctx);
      return ok(await renderProtections(ctx.deps, await listProtections(ctx.deps.db, loaded.repo.id)));
    },
  }),
  route<z.infer<typeof createProtectionBody>>({
    method: 'post', path: '/repos/{owner}/{repo}/branch_protections', operationId: 'repoCreateBranchProtection', summary: 'Create a branch protections for a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: createProtectionBody,
    responses: { 201: 'BranchProtection', 403: 'forbidden', 404: 'notFound', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const loaded = await loadForProtections(ctx.deps, ctx);
      const { rule_name, branch_name, ...input } = ctx.body;
      const ruleName = rule_name || branch_name;
      if (!ruleName) throw badRequest('both rule_name and branch_name are empty');
      const rule = await inTx(ctx.deps, (tx) => createProtection(tx, loaded.repo, doerOf(ctx.caller), ruleName, input as ProtectionInput));
      return created((await renderProtections(ctx.deps, [rule]))[0]);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoGetBranchProtection', summary: 'Get a specific branch protection for the repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, responses: { 200: 'BranchProtection', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadForProtections(ctx.deps, ctx);
      return ok((await renderProtections(ctx.deps, [await getProtection(ctx.deps.db, loaded.repo.id, ctx.params.name)]))[0]);
    },
  }),
  route<z.infer<typeof editProtectionBody>>({
    method: 'patch', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoEditBranchProtection', tag: 'repository',
    summary: 'Edit a branch protections for a repository. Only fields that are set will be changed',
    scope: 'write:repository', signedIn: true, body: editProtectionBody,
    responses: { 200: 'BranchProtection', 404: 'notFound', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async (ctx) => {
      const loaded = await loadForProtections(ctx.deps, ctx);
      const rule = await inTx(ctx.deps, async (tx) => {
        const current = await getProtection(tx, loaded.repo.id, ctx.params.name);
        return editProtection(tx, loaded.repo, doerOf(ctx.caller), current, ctx.body as ProtectionInput);
      });
      return ok((await renderProtections(ctx.deps, [rule]))[0]);
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoDeleteBranchProtection', summary: 'Delete a specific branch protection for the repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadForProtections(ctx.deps, ctx);
      await inTx(ctx.deps, (tx) => deleteProtection(tx, loaded.repo, doerOf(ctx.caller), ctx.params.name));
      return noContent();
    },
  }),
];
