import { z } from 'zod';
import { limits, refName } from '../../http/fields.js';
import { inTx } from '../../../db/data-source.js';
import { notFound } from '../../../db/errors.js';
import { isValidRefPattern } from '../../../db/git/objects.js';
import type { TagInfo } from '../../../db/git/read.js';
import { createTag, deleteTag } from '../../../db/models/code/tags.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderTag } from '../../render/git.js';
import { openGitView } from './git-data.js';

const createTagBody = z.object({
  tag_name: refName(limits.tag).min(1),
  target: refName().optional(),
  message: z.string().optional(),
});

export const tagRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/tags', operationId: 'repoListTags', summary: "List a repository's tags",
    tag: 'repository', scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'TagList', 404: 'notFound' },
    handle: async ({ deps, repo, page, list }) => {
      const view = openGitView(deps, repo);
      const names = await view.reader.listTagNames();
      const infos = await Promise.all(names.slice(page.offset, page.offset + page.limit).map((name) => view.reader.tagInfo(name)));
      const tags = infos.filter((info): info is TagInfo => info !== null).map((info) => renderTag(view.links, info));
      return list(tags, names.length);
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/tags/{tag}', rest: 'tag', operationId: 'repoGetTag', summary: 'Get the tag of a repository by tag name',
    tag: 'repository', scope: 'read:repository', repo: {}, responses: { 200: 'Tag', 404: 'notFound' },
    handle: async ({ deps, repo, params: { tag } }) => {
      const view = openGitView(deps, repo);
      const info = isValidRefPattern(tag) ? await view.reader.tagInfo(tag) : null;
      if (!info) throw notFound(`tag doesn't exist: ${tag}`);
      return ok(renderTag(view.links, info));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/tags', operationId: 'repoCreateTag', summary: 'Create a new git tag in a repository',
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write', notArchived: true }, body: createTagBody,
    responses: { 201: 'Tag', 404: 'notFound', 405: 'empty', 409: 'conflict', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, body }) => {
      const view = openGitView(deps, repo);
      const name = await inTx(deps, (tx) => createTag(tx, deps, repo.repo, doer, body));
      const info = await view.reader.tagInfo(name);
      if (!info) throw new Error(`the tag just created is missing: ${name}`);
      return created(renderTag(view.links, info));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/tags/{tag}', rest: 'tag', operationId: 'repoDeleteTag', summary: "Delete a repository's tag by name",
    tag: 'repository', scope: 'write:repository', signedIn: true, repo: { unit: 'repo.code', mode: 'write', notArchived: true },
    responses: { 204: 'empty', 404: 'notFound', 405: 'empty', 409: 'conflict', 422: 'validationError', 423: 'repoArchivedError' },
    handle: async ({ deps, repo, doer, params }) => {
      await inTx(deps, (tx) => deleteTag(tx, deps, repo.repo, doer, params.tag));
      return noContent();
    },
  }),
];
