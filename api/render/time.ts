/** Gitea writes RFC 3339 timestamps without fractions; a Unix timestamp of 0 (never set) renders as 1970, as Gitea's AsTime does. */
export function iso(date: Date | null | undefined): string {
  const text = (date ?? new Date(0)).toISOString();
  // years 0 to 9999 print as YYYY-MM-DDTHH:mm:ss.sssZ; others with a sign and six digits
  return text.length === 24 ? `${text.slice(0, 19)}Z` : text.replace(/\.\d{3}Z$/, 'Z');
}

/** Go's zero time.Time, which Gitea sends for a time it never had (`mirror_updated` of a repository that is not a mirror). */
export const goZeroTime = '0001-01-01T00:00:00Z';
