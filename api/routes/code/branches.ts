import { z } from 'zod';
import { count, limits, refName, text } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { badRequest, notFound } from '../../../db/errors.js';
import {
  createProtection, deleteProtection, editProtection, getProtection, listProtections, type ProtectionInput,
} from '../../../db/models/code/branch-protection.js';
import {
  assertBranchesWritable, branchPagePreload, createBranch, deleteBranch, listBranchPage,
} from '../../../db/models/code/branches.js';
import { ensureBranchRows } from '../../../db/models/code/push-sync.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import { loadProtectionView, loadProtectionViews } from '../../../db/views/branch-protections.js';
import { listedBranchViews, loadBranchViews } from '../../../db/views/branches.js';
import type { Deps } from '../../deps.js';
import type { Page } from '../../http/pagination.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderBranch, renderBranchProtection, type ApiBranch } from '../../render/branch.js';
import type { LoadedRepo } from '../../context/repo.js';

const createBranchBody = z.object({
  new_branch_name: refName(limits.branch).min(1),
  old_branch_name: refName(limits.branch).optional(),
  old_ref_name: refName().optional(),
});

const names = z.array(text(limits.name)).optional();
const flag = z.boolean().optional();
const protectionFields = {
  enable_push: flag, enable_push_whitelist: flag, push_whitelist_usernames: names, push_whitelist_teams: names,
  push_whitelist_deploy_keys: flag, enable_merge_whitelist: flag, merge_whitelist_usernames: names, merge_whitelist_teams: names,
  enable_status_check: flag, status_check_contexts: names, required_approvals: count().optional(),
  enable_approvals_whitelist: flag, approvals_whitelist_username: names, approvals_whitelist_teams: names,
  block_on_rejected_reviews: flag, block_on_official_review_requests: flag, block_on_outdated_branch: flag,
  dismiss_stale_approvals: flag, ignore_stale_approvals: flag, require_signed_commits: flag,
  protected_file_patterns: z.string().optional(), unprotected_file_patterns: z.string().optional(),
};
const editProtectionBody = z.object(protectionFields);
const createProtectionBody = z.object({ ...protectionFields, rule_name: text(limits.name).optional(), branch_name: refName().optional() });

const repoHtmlUrl = (deps: Deps, loaded: LoadedRepo): string => `${deps.config.rootUrl}${loaded.owner.name}/${loaded.repo.name}`;

async function renderBranchNamed(deps: Deps, loaded: LoadedRepo, viewer: UserRow | null, name: string): Promise<ApiBranch> {
  const [view] = await loadBranchViews(deps.db, deps.git, loaded, viewer, [name]);
  if (!view) throw notFound(`branch ${name} does not exist`);
  return renderBranch(view, repoHtmlUrl(deps, loaded));
}

/** A page of a repository's branches as the API lists them (rows made for branches pushed but not yet synced). */
export async function listBranchesRendered(
  deps: Deps, repo: LoadedRepo, doer: UserRow | null, page: Page, preloaded?: Awaited<ReturnType<typeof listBranchPage>>,
): Promise<{ branches: ApiBranch[]; total: number }> {
  if (repo.repo.is_empty) return { branches: [], total: 0 };
  let { branches, total, protectedAny } = preloaded ?? await listBranchPage(deps.db, repo.repo.id, page);
  const incomplete = branches.filter((b) => !b.head).map((b) => b.name);
  if (total === 0 || incomplete.length > 0) {
    await inTx(deps, (tx) => ensureBranchRows(tx, deps.git, repo.repo.id, doer?.id ?? null, incomplete));
    ({ branches, total, protectedAny } = await listBranchPage(deps.db, repo.repo.id, page));
  }
  const views = await listedBranchViews(deps.db, repo, doer, branches, protectedAny ? undefined : []);
  return { branches: views.map((v) => renderBranch(v, repoHtmlUrl(deps, repo))), total: total - (branches.length - views.length) };
}

/** Gitea's reqToken + reqAdmin: repository administrators manage protection rules. */
const protectionsAdmin = { mode: 'admin' } as const;
const protectionsChange = { mode: 'admin', notArchived: true } as const;

export const branchRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branches', operationId: 'repoListBranches', summary: "List a repository's branches", tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'BranchList' },
    preload: ({ page }) => branchPagePreload(page),
    handle: async ({ deps, repo, doer, page, list, preloaded }) => {
      const { branches, total } = await listBranchesRendered(deps, repo, doer, page, preloaded);
      return list(branches, total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/branches', operationId: 'repoCreateBranch', summary: 'Create a branch', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write', notArchived: true }, body: createBranchBody,
    responses: { 201: 'Branch', 403: 'forbidden', 404: 'notFound', 409: 'error', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body }) => {
      assertBranchesWritable(repo.repo);
      const [revision, missing] = body.old_ref_name
        ? [body.old_ref_name, 'The old ref does not exist']
        : [`refs/heads/${body.old_branch_name || repo.repo.default_branch}`, 'The old branch does not exist'];
      const commit = await deps.git.open(repo.repo).resolve(revision);
      if (!commit) throw notFound(missing);
      await inTx(deps, (tx) => createBranch(tx, deps.git, repo.repo, doer, body.new_branch_name, commit));
      return created(await renderBranchNamed(deps, repo, doer, body.new_branch_name));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branches/{branch}', rest: 'branch', operationId: 'repoGetBranch', tag: 'repository',
    summary: 'Retrieve a specific branch from a repository, including its effective branch protection',
    scope: 'read:repository', repo: {}, responses: { 200: 'Branch', 404: 'notFound' },
    handle: async ({ deps, repo, doer, params }) => ok(await renderBranchNamed(deps, repo, doer, params.branch)),
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/branches/{branch}', rest: 'branch', operationId: 'repoDeleteBranch', summary: 'Delete a specific branch from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write', notArchived: true }, responses: { 204: 'empty', 403: 'error', 404: 'notFound', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, params }) => {
      assertBranchesWritable(repo.repo);
      await inTx(deps, (tx) => deleteBranch(tx, deps.git, repo.repo, doer, params.branch));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branch_protections', operationId: 'repoListBranchProtection', summary: 'List branch protections for a repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: protectionsAdmin, responses: { 200: 'BranchProtectionList' },
    handle: async ({ deps, repo }) => {
      const views = await loadProtectionViews(deps.db, await listProtections(deps.db, repo.repo.id));
      return ok(views.map(renderBranchProtection));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/branch_protections', operationId: 'repoCreateBranchProtection', summary: 'Create a branch protections for a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: protectionsChange, body: createProtectionBody,
    responses: { 201: 'BranchProtection', 403: 'forbidden', 404: 'notFound', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body }) => {
      const { rule_name, branch_name, ...input } = body;
      const ruleName = rule_name || branch_name;
      if (!ruleName) throw badRequest('both rule_name and branch_name are empty');
      const rule = await inTx(deps, (tx) => createProtection(tx, repo.repo, doer, ruleName, input as ProtectionInput));
      return created(renderBranchProtection(await loadProtectionView(deps.db, rule)));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoGetBranchProtection', summary: 'Get a specific branch protection for the repository', tag: 'repository',
    scope: 'read:repository', signedIn: true, repo: protectionsAdmin, responses: { 200: 'BranchProtection', 404: 'notFound' },
    handle: async ({ deps, repo, params }) => {
      const rule = await getProtection(deps.db, repo.repo.id, params.name);
      return ok(renderBranchProtection(await loadProtectionView(deps.db, rule)));
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoEditBranchProtection', tag: 'repository',
    summary: 'Edit a branch protections for a repository. Only fields that are set will be changed',
    scope: 'write:repository', signedIn: true, repo: protectionsChange, body: editProtectionBody,
    responses: { 200: 'BranchProtection', 404: 'notFound', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, params, body }) => {
      const rule = await inTx(deps, async (tx) => {
        const current = await getProtection(tx, repo.repo.id, params.name);
        return editProtection(tx, repo.repo, doer, current, body as ProtectionInput);
      });
      return ok(renderBranchProtection(await loadProtectionView(deps.db, rule)));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/branch_protections/{name}', rest: 'name', operationId: 'repoDeleteBranchProtection', summary: 'Delete a specific branch protection for the repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: protectionsAdmin, responses: { 204: 'empty', 404: 'notFound' },
    handle: async ({ deps, repo, doer, params }) => {
      await inTx(deps, (tx) => deleteProtection(tx, repo.repo, doer, params.name));
      return noContent();
    },
  }),
];
