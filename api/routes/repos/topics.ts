import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import { addTopic, deleteTopic, listRepoTopics, replaceTopics, searchTopics } from '../../../db/models/repos/topics.js';
import { noContent, route } from '../../http/route.js';
import { renderTopic } from '../../render/topic.js';

const topicsBody = z.object({ topics: z.array(z.string()).default([]) });

export const topicRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/topics', operationId: 'repoListTopics', summary: 'Get list of topics that a repository has', tag: 'repository',
    scope: 'read:repository', repo: {}, paginated: true, responses: { 200: 'TopicNames' },
    handle: async ({ deps, repo, page, list }) => {
      const { names, total } = await listRepoTopics(deps.db, repo.repo.id, page);
      return { ...list([], total), body: { topics: names } };
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/topics', operationId: 'repoUpdateTopics', summary: 'Replace list of topics for a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, body: topicsBody, responses: { 204: 'empty', 422: 'invalidTopicsError' },
    handle: async ({ deps, repo, body }) => {
      await inTx(deps, (tx) => replaceTopics(tx, repo.repo, body.topics));
      return noContent();
    },
  }),
  route({
    method: 'put', path: '/repos/{owner}/{repo}/topics/{topic}', operationId: 'repoAddTopic', summary: 'Add a topic to a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, responses: { 204: 'empty', 422: 'invalidTopicsError' },
    handle: async ({ deps, repo, params }) => {
      await inTx(deps, (tx) => addTopic(tx, repo.repo, params.topic));
      return noContent();
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/topics/{topic}', operationId: 'repoDeleteTopic', summary: 'Delete a topic from a repository', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: { mode: 'admin' }, responses: { 204: 'empty', 422: 'invalidTopicsError' },
    handle: async ({ deps, repo, params }) => {
      await inTx(deps, (tx) => deleteTopic(tx, repo.repo, params.topic));
      return noContent();
    },
  }),
  route({
    method: 'get', path: '/topics/search', operationId: 'topicSearch', summary: 'search topics via keyword', tag: 'repository',
    scope: 'read:repository', paginated: true, query: z.object({ q: z.string().default('') }),
    responses: { 200: 'TopicListResponse', 403: 'forbidden', 404: 'notFound' },
    handle: async ({ deps, query, page, list }) => {
      const { topics, total } = await searchTopics(deps.db, query.q, page);
      return { ...list([], total), body: { topics: topics.map(renderTopic) } };
    },
  }),
];
