import type { TopicRow } from '../../db/models/repos/topics.js';
import { iso } from './time.js';

/** The TopicResponse definition. */
export interface ApiTopic {
  id: number;
  topic_name: string;
  repo_count: number;
  created: string;
  updated: string;
}

export function renderTopic(topic: TopicRow): ApiTopic {
  return { id: topic.id, topic_name: topic.name, repo_count: topic.repo_count, created: iso(topic.created), updated: iso(topic.updated) };
}
