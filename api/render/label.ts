import type { LabelRow } from '../../db/models/orgs/labels.js';

/** The Label definition of the Gitea 1.22 API description. */
export interface ApiLabel {
  id: number;
  name: string;
  exclusive: boolean;
  is_archived: boolean;
  color: string;
  description: string;
  url: string;
}

/** `url` is the label's API address: `.../repos/{owner}/{repo}/labels/{id}` or `.../orgs/{org}/labels/{id}`. */
export function renderLabel(label: LabelRow, labelsUrl: string): ApiLabel {
  return {
    id: label.id,
    name: label.name,
    exclusive: label.exclusive,
    is_archived: label.archived_at !== null,
    color: label.color.replace(/^#/, ''),
    description: label.description,
    url: `${labelsUrl}/${label.id}`,
  };
}
