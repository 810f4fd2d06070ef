import { notFound } from '../../db/errors.js';

/** A numeric id from the path; anything else (or past 15 digits) names nothing, a 404. */
export function parseId(value: string | undefined): number {
  if (value === undefined || !/^\d{1,15}$/.test(value)) throw notFound();
  return Number(value);
}

export function parseIds(names: readonly string[], params: Record<string, string>): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, parseId(params[name])]));
}
