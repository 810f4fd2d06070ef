/** Gitea writes RFC 3339 timestamps without fractions; a Unix timestamp of 0 (never set) renders as 1970, as Gitea's AsTime does. */
export function iso(date: Date | null | undefined): string {
  return (date ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's zero time.Time, which Gitea sends for a time it never had (`mirror_updated` of a repository that is not a mirror). */
export const goZeroTime = '0001-01-01T00:00:00Z';
