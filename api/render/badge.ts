import type { BadgeRow } from '../../db/models/users/badges.js';

/** The Badge definition. */
export interface ApiBadge {
  id: number;
  slug: string;
  description: string;
  image_url: string;
}

export function renderBadge(badge: BadgeRow): ApiBadge {
  return { id: badge.id, slug: badge.slug, description: badge.description, image_url: badge.image_url };
}
