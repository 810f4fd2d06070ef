import type { Queryable, Tx } from '../../data-source.js';
import { invalid, isUniqueViolation } from '../../errors.js';
import type { UserRow } from './user-row.js';

/** A row of `badge`. */
export interface BadgeRow {
  id: number;
  slug: string;
  description: string;
  image_url: string;
}

/** Defines a badge that administrators can then give to users; slugs are unique. */
export async function createBadge(tx: Tx, input: { slug: string; description?: string; image_url?: string }): Promise<BadgeRow> {
  const slug = input.slug.trim();
  if (!slug) throw invalid('a badge needs a slug');
  try {
    const [row] = await tx.query<BadgeRow>(
      'INSERT INTO badge (slug, description, image_url) VALUES ($1, $2, $3) RETURNING *',
      [slug, input.description ?? '', input.image_url ?? ''],
    );
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`badge ${slug} already exists`);
    throw error;
  }
}

/** The user's badges, in the order they were given. */
export async function listUserBadges(db: Queryable, user: UserRow): Promise<{ badges: BadgeRow[]; total: number }> {
  const badges = await db.query<BadgeRow>(
    'SELECT b.* FROM badge b JOIN user_badge ub ON ub.badge_id = b.id WHERE ub.user_id = $1 ORDER BY ub.id',
    [user.id],
  );
  return { badges, total: badges.length };
}

/**
 * Gives the badges named by `slugs` to the user. Every slug must name a badge (else 422, and nothing is given);
 * a badge the user already has stays as it is.
 */
export async function addUserBadges(tx: Tx, user: UserRow, slugs: string[]): Promise<void> {
  const wanted = [...new Set(slugs)];
  const found = await tx.query<{ id: number; slug: string }>('SELECT id, slug FROM badge WHERE slug = ANY($1::text[])', [wanted]);
  const missing = wanted.filter((slug) => !found.some((badge) => badge.slug === slug));
  if (missing.length) throw invalid(`badge with slug ${missing[0]} doesn't exist`);
  await tx.query(
    `INSERT INTO user_badge (badge_id, user_id) SELECT id, $2 FROM badge WHERE id = ANY($1::bigint[])
     ORDER BY array_position($1::bigint[], id) ON CONFLICT (user_id, badge_id) DO NOTHING`,
    [wanted.map((slug) => found.find((badge) => badge.slug === slug)!.id), user.id],
  );
}

/** Takes the badges named by `slugs` from the user; a slug the user does not hold changes nothing. */
export async function removeUserBadges(tx: Tx, user: UserRow, slugs: string[]): Promise<void> {
  await tx.query(
    'DELETE FROM user_badge ub USING badge b WHERE ub.badge_id = b.id AND ub.user_id = $1 AND b.slug = ANY($2::text[])',
    [user.id, slugs],
  );
}
