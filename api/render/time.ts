/** Gitea writes RFC 3339 timestamps without fractions. */
export function iso(date: Date | null | undefined): string {
  return (date ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
