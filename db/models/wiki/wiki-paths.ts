/**
 * Gitea's wiki names (services/wiki/wiki_path.go). A page has three spellings:
 * - the title users see: "Home Page", "100% Free";
 * - the web path in URLs (`sub_url`): "Home-Page", "100%25+Free"; spaces become dashes, and a segment that had
 *   dashes of its own (or ends in `.md`) keeps them and gets the `.-` marker instead;
 * - the git path of the file: "Home-Page.md", "100%25 Free.md" (the web path with spaces kept).
 * A slash in a title is escaped (`%2F`), so every page is a file at the top of the wiki repository.
 */
export type WebPath = string;

const reservedWikiNames = ['_pages', '_new', '_edit', 'raw'];
const dashMarker = '.-';

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` percent-encoded, spaces as `+`. */
export function queryEscape(text: string): string {
  // a lone surrogate (JSON may carry one) has no UTF-8 form: it becomes U+FFFD, as Go's UTF-8 encoding makes it
  const wellFormed = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return encodeURIComponent(wellFormed)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's url.QueryUnescape (with `+` as a space) or PathUnescape; null for a malformed escape. Bytes, not code points. */
function unescape(text: string, plusIsSpace: boolean): string | null {
  const bytes: number[] = [];
  const raw = Buffer.from(text, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === 0x25) {
      const hex = raw.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (byte === 0x2b && plusIsSpace) {
      bytes.push(0x20);
    } else {
      bytes.push(byte);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export const queryUnescape = (text: string): string | null => unescape(text, true);
const pathUnescape = (text: string): string | null => unescape(text, false);

/** Gitea's util.PathJoinRelX: the elements joined and cleaned as a relative path, backslashes read as slashes. */
export function pathJoinRelX(...elements: string[]): string {
  const cleaned = elements.filter(Boolean).map((e) => cleanPath(`/${e.replace(/\\/g, '/')}`));
  const joined = cleanPath(cleaned.join('/') || '');
  if (joined === '' || joined === '.') return '';
  if (joined === '/') return '.';
  return joined.replace(/^\//, '');
}

/** Go's path.Clean. */
function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const body = out.join('/');
  if (rooted) return `/${body}`;
  return body || '.';
}

function unescapeSegment(segment: string): string {
  const text = segment.endsWith(dashMarker) ? segment.slice(0, -dashMarker.length) : segment.replace(/-/g, ' ');
  return queryUnescape(text) ?? text;
}

function escapeSegToWeb(segment: string, hadDashMarker: boolean): string {
  const text = hadDashMarker || segment.includes('-') || segment.endsWith('.md') ? `${segment}${dashMarker}` : segment.replace(/ /g, '-');
  return queryEscape(text);
}

/** The reserved segment a web path uses (`_pages`, `_new`, `_edit`, `raw`), or null. */
export function reservedSegment(path: WebPath): string | null {
  return path.split('/').map(unescapeSegment).find((s) => reservedWikiNames.includes(s)) ?? null;
}

/** The file of a page. A web path ending in `.md` names the file itself. */
export function webPathToGitPath(path: WebPath): string {
  if (path.endsWith('.md')) return pathJoinRelX(pathUnescape(path) ?? path);
  return `${path
    .split('/')
    .map((segment) => escapeSegToWeb(unescapeSegment(segment), segment.endsWith(dashMarker)).replace(/%20/g, ' ').replace(/\+/g, ' '))
    .join('/')}.md`;
}

/** The web path of a file, or null for a file that is not a page (not `*.md`, or an undecodable name). */
export function gitPathToWebPath(file: string): WebPath | null {
  if (!file.endsWith('.md')) return null;
  const segments = file.slice(0, -'.md'.length).split('/');
  const out: string[] = [];
  for (const segment of segments) {
    const marked = segment.endsWith(dashMarker);
    const text = marked ? segment.slice(0, -dashMarker.length) : segment.replace(/-/g, ' ');
    const unescaped = queryUnescape(text);
    if (unescaped === null) return null;
    out.push(escapeSegToWeb(unescaped, marked));
  }
  return out.join('/');
}

/** The title users see for a web path (Gitea's WebPathToUserTitle display part). */
export function webPathToTitle(path: WebPath): string {
  let display = path.slice(path.lastIndexOf('/') + 1);
  if (display.endsWith('.md')) display = pathUnescape(display.slice(0, -'.md'.length)) ?? display.slice(0, -'.md'.length);
  return unescapeSegment(display);
}

/** `.` or `..` as a URL path segment, escaped dots included (a URL parser resolves them away). */
export const isDotSegment = (segment: string): boolean => /^(?:\.|%2e){1,2}$/i.test(segment);

/** Whether a web path from a request can name a page at all: not empty, not `.`. */
export const isPageWebPath = (path: WebPath): boolean => path !== '' && path !== '.';

/** The web path a page name in a request URL stands for (still percent-encoded, as it came): slashes become `%2F`. */
export function webPathFromRequest(raw: string): WebPath {
  return pathJoinRelX(raw).replace(/\//g, '%2F');
}

/** The web path of a new title: trimmed and escaped; an empty title is "unnamed". */
export function titleToWebPath(title: string): WebPath {
  const path = pathJoinRelX(escapeSegToWeb(title.trim(), false));
  return path === '' || path === '.' ? 'unnamed' : path;
}
