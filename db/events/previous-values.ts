import { isDeepStrictEqual } from 'node:util';

/** An event's `previous`: the values `before` had in those of `fields` that differ in `after`. */
export function previousValues<T extends object, F extends keyof T>(before: T, after: T, fields: readonly F[]): Partial<Pick<T, F>> {
  const previous: Partial<Pick<T, F>> = {};
  for (const field of fields) if (!isDeepStrictEqual(before[field], after[field])) previous[field] = before[field];
  return previous;
}
