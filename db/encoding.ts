/**
 * Go's base64.StdEncoding.DecodeString, which Gitea uses for every base64 field: the standard alphabet with
 * its padding, line breaks (`\r`, `\n`) ignored, anything else refused (null). Node's own decoder would skip
 * bad characters instead. The empty string decodes to no bytes.
 */
export function decodeBase64Strict(text: string): Buffer | null {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}
