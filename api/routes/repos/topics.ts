import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { accessModes } from '../../../db/models/repos/repo-row.js';
import { addTopic, deleteTopic, listRepoTopics, replaceTopics, searchTopics } from '../../../db/models/repos/topics.js';
import { loadRepo, requireMode } from '../../context/repo.js';
import { pageOf, paged } from '../../http/pagination.js';
import { noContent, route } from '../../http/route.js';
import { renderTopic } from '../../render/topic.js';

type PageQuery = { page?: number; limit?: number };
const topicsBody = z.object({ topics: z.array(z.string()).default([]) });

export const topicRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/topics', operationId: 'repoListTopics', summary: 'Get list of topics that a repository has', tag: 'repository',
    scope: 'read:repository', paginated: true, responses: { 200: 'TopicNames', 404: 'notFound' },
    handle: async (ctx) => {
      const loaded = await loadRepo(ctx.deps, ctx.caller, ctx.params.owner, ctx.params.repo);
      const page = pageOf(ctx.query);
      const { names, total } = await listRepoTopics(ctx.deps.db, loaded.repo.id, page);
      const reply = paged([], total, page, ctx.url);
      return { ...reply, body: { topics: names } };
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/topics', operationId: 'repoUpdateTopics', summary: 'Replace list of topics for a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, body: topicsBody, responses: { 204: 'empty', 404: 'notFound', 422: 'invalidTopicsError' },
    handle: async ({ deps, caller, params, body }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.admin);
      await inTx(deps, (tx) => replaceTopics(tx, loaded.repo, body.topics));
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/topics/{topic}', operationId: 'repoAddTopic', summary: 'Add a topic to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'invalidTopicsError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.admin);
      await inTx(deps, (tx) => addTopic(tx, loaded.repo, params.topic));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/topics/{topic}', operationId: 'repoDeleteTopic', summary: 'Delete a topic from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, responses: { 204: 'empty', 404: 'notFound', 422: 'invalidTopicsError' },
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadRepo(deps, caller, params.owner, params.repo);
      requireMode(loaded, accessModes.admin);
      await inTx(deps, (tx) => deleteTopic(tx, loaded.repo, params.topic));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/topics/search', operationId: 'topicSearch', summary: 'search topics via keyword', tag: 'repository',
    scope: 'read:repository', paginated: true, query: z.object({ q: z.string().default('') }),
    responses: { 200: 'TopicListResponse', 403: 'forbidden', 404: 'notFound' },
    handle: async (ctx) => {
      const page = pageOf(ctx.query);
      const { topics, total } = await searchTopics(ctx.deps.db, ctx.query.q, page);
      const reply = paged([], total, page, ctx.url);
      return { ...reply, body: { topics: topics.map(renderTopic) } };
    },
  }),
];
