import { notFound } from '../../db/errors.js';

const idPattern = /^\d{1,15}$/;

/** A numeric id from the path; anything else (or past 15 digits) names nothing, a 404. */
export function parseId(value: string | undefined): number {
  if (value === undefined || !idPattern.test(value)) throw notFound();
  return Number(value);
}

export function parseIds(names: readonly string[], params: Record<string, string>): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, parseId(params[name])]));
}

/** parseIds, or null when one of them names nothing. */
export function validIds(names: readonly string[], params: Record<string, string>): Record<string, number> | null {
  return names.every((name) => idPattern.test(params[name] ?? '')) ? parseIds(names, params) : null;
}
