import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { clearIssueLabels, addIssueLabels, labelsOfIssues, removeIssueLabel, replaceIssueLabels, resolveLabelNamesOrIds } from '../../../db/models/issues/issue-labels.js';
import { createLabel, deleteLabel, editLabel, findLabel, findLabelByName, listLabels, type LabelRow } from '../../../db/models/orgs/labels.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { Deps } from '../../deps.js';
import { loadIssue } from '../../context/issue.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderIssueLabel } from '../../render/issue.js';
import { issuesRepo } from './issues.js';

const createLabelBody = z.object({
  name: z.string(),
  color: z.string(),
  description: z.string().optional(),
  exclusive: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});
const editLabelBody = createLabelBody.partial();
/** IssueLabelsOption: label ids or names. */
const issueLabelsBody = z.object({ labels: z.array(z.union([z.number().int().positive(), z.string().min(1)])).optional() });

const labelsReader = { unit: 'repo.issues' } as const;
const labelsWriter = { unit: 'repo.issues', mode: 'write' } as const;

const renderAll = (deps: Deps, repo: RepoRow, labels: LabelRow[]) => labels.map((label) => renderIssueLabel(label, repo, deps.config));

/** Gitea's GetLabel: a positive number names a label by id, anything else by name. */
async function labelByIdOrName(deps: Deps, repo: RepoRow, key: string): Promise<LabelRow> {
  const label = /^\d{1,15}$/.test(key) && Number(key) > 0
    ? await findLabel(deps.db, { repoId: repo.id }, Number(key))
    : await findLabelByName(deps.db, { repoId: repo.id }, key);
  if (!label) throw notFound(`label ${key} does not exist`);
  return label;
}

async function labelById(deps: Deps, repo: RepoRow, id: number): Promise<LabelRow> {
  const label = await findLabel(deps.db, { repoId: repo.id }, id);
  if (!label) throw notFound(`label ${id} does not exist`);
  return label;
}

async function issueLabels(deps: Deps, issueId: number): Promise<LabelRow[]> {
  return (await labelsOfIssues(deps.db, [issueId])).get(issueId) ?? [];
}

export const labelRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/labels', operationId: 'issueListLabels', summary: "Get all of a repository's labels", tag: 'issue',
    scope: 'read:issue', repo: labelsReader, paginated: true, responses: { 200: 'LabelList' },
    handle: async ({ deps, repo, page, list }) => {
      const { labels, total } = await listLabels(deps.db, { repoId: repo.repo.id }, page);
      return list(renderAll(deps, repo.repo, labels), total);
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/labels', operationId: 'issueCreateLabel', summary: 'Create a label', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: labelsWriter, body: createLabelBody, responses: { 201: 'Label', 422: 'validationError' },
    handle: async ({ deps, repo, body }) => {
      const label = await inTx(deps, (tx) => createLabel(tx, { repoId: repo.repo.id }, body));
      return created(renderIssueLabel(label, repo.repo, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/labels/{id}', operationId: 'issueGetLabel', summary: 'Get a single label', tag: 'issue',
    scope: 'read:issue', repo: labelsReader, responses: { 200: 'Label' },
    handle: async ({ deps, repo, params }) => ok(renderIssueLabel(await labelByIdOrName(deps, repo.repo, params.id), repo.repo, deps.config)),
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/labels/{id}', operationId: 'issueEditLabel', summary: 'Update a label', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: labelsWriter, ids: ['id'], body: editLabelBody, responses: { 200: 'Label', 422: 'validationError' },
    handle: async ({ deps, repo, ids, body }) => {
      const label = await labelById(deps, repo.repo, ids.id);
      return ok(renderIssueLabel(await inTx(deps, (tx) => editLabel(tx, label, body)), repo.repo, deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/labels/{id}', operationId: 'issueDeleteLabel', summary: 'Delete a label', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: labelsWriter, ids: ['id'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, ids }) => {
      const label = await labelById(deps, repo.repo, ids.id);
      await inTx(deps, (tx) => deleteLabel(tx, label));
      return noContent();
    },
  }),

  route({
    method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/labels', operationId: 'issueGetLabels', summary: "Get an issue's labels", tag: 'issue',
    scope: 'read:issue', repo: issuesRepo, ids: ['index'], responses: { 200: 'LabelList' },
    handle: async ({ deps, repo, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index);
      return ok(renderAll(deps, repo.repo, await issueLabels(deps, issue.id)));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/labels', operationId: 'issueAddLabel', summary: 'Add a label to an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: issueLabelsBody, responses: { 200: 'LabelList', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue } = await loadIssue(deps, repo, ids.index, 'write');
      await inTx(deps, async (tx) => addIssueLabels(tx, repo.repo, issue, doer, await resolveLabelNamesOrIds(tx, repo.repo, body.labels ?? [])));
      return ok(renderAll(deps, repo.repo, await issueLabels(deps, issue.id)));
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/issues/{index}/labels', operationId: 'issueReplaceLabels', summary: "Replace an issue's labels", tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], body: issueLabelsBody, responses: { 200: 'LabelList', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids, body }) => {
      const { issue } = await loadIssue(deps, repo, ids.index, 'write');
      await inTx(deps, async (tx) => replaceIssueLabels(tx, repo.repo, issue, doer, await resolveLabelNamesOrIds(tx, repo.repo, body.labels ?? [])));
      return ok(renderAll(deps, repo.repo, await issueLabels(deps, issue.id)));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/labels', operationId: 'issueClearLabels', summary: 'Remove all labels from an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index, 'write');
      await inTx(deps, (tx) => clearIssueLabels(tx, repo.repo, issue, doer));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/labels/{id}', operationId: 'issueRemoveLabel', summary: 'Remove a label from an issue', tag: 'issue',
    scope: 'write:issue', signedIn: true, repo: issuesRepo, ids: ['index', 'id'], responses: { 204: 'empty', 422: 'validationError' },
    handle: async ({ deps, repo, doer, ids }) => {
      const { issue } = await loadIssue(deps, repo, ids.index, 'write');
      await inTx(deps, async (tx) => {
        const [label] = await resolveLabelNamesOrIds(tx, repo.repo, [ids.id]);
        await removeIssueLabel(tx, repo.repo, issue, doer, label);
      });
      return noContent();
    },
  }),
];
