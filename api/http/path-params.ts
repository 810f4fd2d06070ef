import { notFound } from '../../db/errors.js';

/** Path parameters git reads as a revision or a ref name (which it may open as a file under refs/). */
const revisionParams = new Set(['sha', 'branch', 'tag', 'ref', 'basehead', 'archive']);
/** Of those, the ones that are only ever names (a `..` in them could only climb out of refs/); a `sha` with `..` is the route's to refuse. */
const nameParams = new Set(['branch', 'tag', 'ref', 'archive']);

/** A file name of 256 bytes or more is refused by the file system; git's ref names are files. */
export const maxRefNameBytes = 255;

/** Whether a text could name a revision: not empty, no NUL, under the file-name limit, no leading `-` git would read as an option. */
export function isPlausibleRevision(value: string): boolean {
  return value.length > 0 && !value.includes('\u0000') && Buffer.byteLength(value) <= maxRefNameBytes && !value.startsWith('-');
}

/** `base...head` (or `base..head`): each side is a revision. */
function isPlausibleBasehead(value: string): boolean {
  const sides = value.split(/\.{2,3}/);
  return sides.length <= 2 && sides.every(isPlausibleRevision);
}

/** One place every path parameter is checked before a loader, git or the file system sees it: anything implausible names nothing, a 404. */
export function checkPathParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (value.includes('\u0000')) throw notFound();
    if (!revisionParams.has(name)) continue;
    if (!(name === 'basehead' ? isPlausibleBasehead(value) : isPlausibleRevision(value))) throw notFound();
    if (nameParams.has(name) && value.split('/').includes('..')) throw notFound();
  }
}

/** A user or repository name as the path or a header gives it: text a database lookup can take (no NUL, a bounded length). */
export function isLookupName(value: string): boolean {
  return !value.includes('\u0000') && value.length <= maxRefNameBytes;
}
