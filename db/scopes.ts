import { badRequest } from './errors.js';

export const scopeCategories = [
  'activitypub', 'admin', 'issue', 'misc', 'notification', 'organization', 'package', 'repository', 'user',
] as const;
export type ScopeCategory = (typeof scopeCategories)[number];
export type Scope = `${'read' | 'write'}:${ScopeCategory}`;

const known = new Set<string>(['all', ...scopeCategories.flatMap((c) => [`read:${c}`, `write:${c}`])]);

/** Gitea's order: `all` first, then categories alphabetically, read before write. */
const order = [...known];

/** Validates scope names and joins them without duplicates; an unknown name is a 400 like Gitea's. */
export function normalizeScopes(names: readonly string[]): string {
  const wanted = new Set<string>();
  for (const raw of names.flatMap((n) => n.split(','))) {
    const name = raw.trim();
    if (!name) continue;
    if (!known.has(name)) throw badRequest(`invalid access token scope provided: ${name}`);
    wanted.add(name);
  }
  if (wanted.has('all')) return 'all';
  for (const category of scopeCategories) {
    if (wanted.has(`write:${category}`)) wanted.delete(`read:${category}`);
  }
  return order.filter((name) => wanted.has(name)).join(',');
}

export function scopeList(stored: string): string[] {
  return stored ? stored.split(',') : [];
}

/** `all` satisfies every scope; `write:x` includes `read:x`. */
export function scopeAllows(stored: string, required: Scope): boolean {
  const granted = scopeList(stored);
  if (granted.includes('all')) return true;
  const [level, category] = required.split(':');
  return granted.includes(`write:${category}`) || (level === 'read' && granted.includes(`read:${category}`));
}
