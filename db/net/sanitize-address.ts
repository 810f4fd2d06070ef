/** An address with any credentials removed, for what is stored and shown (original_url, remote_address). */
export function sanitizeAddress(address: string): string {
  try {
    const url = new URL(address.trim());
    if (!url.username && !url.password) return address.trim();
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return address.trim();
  }
}
