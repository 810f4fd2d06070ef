import MarkdownIt from 'markdown-it';
import Token from 'markdown-it/lib/token.mjs';
import sanitizeHtml from 'sanitize-html';
import type { Queryable } from '../../data-source.js';
import { invalid } from '../../errors.js';
import { visibilities, type UserRow } from '../users/user-row.js';
import { visibleTo } from '../users/users.js';

/** Gitea's render modes: `markdown` is plain rendering; the others also link @mentions. */
export type MarkupMode = 'markdown' | 'gfm' | 'comment' | 'wiki' | 'file';

export interface MarkupRequest {
  text: string;
  /** As the client sent it; '' means markdown. */
  mode: string;
  /** Where relative links point: a path under the root URL (`/owner/repo/src/branch/main`) or an absolute URL. */
  context?: string;
  /** For mode `file`: the file's path, whose extension picks the renderer. */
  filePath?: string;
}

const markdownExtensions = ['.md', '.markdown', '.mdown', '.mkd', '.livemd'];

/** GFM-like: tables, strikethrough, autolinks; raw HTML is parsed, then the sanitizer keeps only safe markup. */
const documents = new MarkdownIt({ html: true, linkify: true, breaks: false });
/** Comments keep their line breaks, as Gitea's EnableHardLineBreakInComments does. */
const comments = new MarkdownIt({ html: true, linkify: true, breaks: true });

/** Gitea's sanitizer policy, near enough: user-generated content markup, checkboxes of task lists, no scripts or styles. */
const policy: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'a', 'img', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'blockquote', 'pre', 'code',
    'kbd', 'samp', 'var', 'em', 'strong', 'b', 'i', 'u', 'del', 's', 'strike', 'ins', 'mark', 'sub', 'sup', 'small', 'abbr', 'q',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'details', 'summary', 'span', 'div', 'input', 'picture', 'source',
  ],
  allowedAttributes: {
    '*': ['id', 'title', 'lang', 'dir'],
    a: ['href', 'rel', 'class', 'name'],
    img: ['src', 'alt', 'width', 'height', 'align', 'loading'],
    source: ['srcset', 'media', 'type'],
    code: ['class'],
    pre: ['class'],
    li: ['class'],
    ol: ['start', 'type'],
    th: ['align', 'style', 'colspan', 'rowspan'],
    td: ['align', 'style', 'colspan', 'rowspan'],
    input: ['type', 'checked', 'disabled', 'class'],
    details: ['open'],
  },
  allowedClasses: {
    a: ['mention'],
    code: [/^language-[\w+#.-]+$/],
    pre: ['code-block'],
    li: ['task-list-item'],
    input: ['task-list-item-checkbox'],
  },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto', 'irc', 'ftp'],
  allowedSchemesAppliedToAttributes: ['href', 'src', 'srcset'],
  allowProtocolRelative: true,
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: attribs.href ? { ...attribs, rel: 'nofollow' } : attribs }),
    input: (tagName, attribs) => ({ tagName, attribs: { ...attribs, disabled: '' } }),
  },
};

/** Gitea's heading ids: `user-content-` and the text, lower-cased, spaces as dashes, other punctuation dropped. */
function addHeadingIds(tokens: Token[]): void {
  const used = new Map<string, number>();
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const text = (tokens[index + 1]?.children ?? []).filter((child) => child.type === 'text' || child.type === 'code_inline').map((child) => child.content).join('');
    const slug = text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const seen = used.get(slug) ?? 0;
    used.set(slug, seen + 1);
    token.attrSet('id', `user-content-${seen ? `${slug}-${seen}` : slug}`);
  });
}

/** `- [ ] item` and `- [x] item`: GitHub's task lists, as disabled checkboxes. */
function addTaskLists(tokens: Token[]): void {
  tokens.forEach((token, index) => {
    if (token.type !== 'inline' || tokens[index - 1]?.type !== 'paragraph_open' || tokens[index - 2]?.type !== 'list_item_open') return;
    const first = token.children?.[0];
    const match = first?.type === 'text' ? /^\[([ xX])\](?:\s+|$)/.exec(first.content) : null;
    if (!first || !match) return;
    first.content = first.content.slice(match[0].length);
    const box = new Token('html_inline', '', 0);
    box.content = `<input type="checkbox" class="task-list-item-checkbox" disabled=""${match[1] === ' ' ? '' : ' checked=""'}/> `;
    token.children!.unshift(box);
    tokens[index - 2].attrJoin('class', 'task-list-item');
  });
}

/** Relative links and images point under `base` (the context); site-absolute ones under the root URL, as in Gitea. */
function resolveLinks(tokens: Token[], rootUrl: string, base: string | null): void {
  const resolve = (target: string): string => {
    if (!target || target.startsWith('#') || target.startsWith('//') || /^[a-z][a-z0-9+.-]*:/i.test(target)) return target;
    if (target.startsWith('/')) return `${rootUrl}${target.slice(1)}`;
    return base ? `${base}/${target.replace(/^\.\//, '')}` : target;
  };
  const visit = (list: Token[]): void => {
    for (const token of list) {
      if (token.type === 'link_open') token.attrSet('href', resolve(token.attrGet('href') ?? ''));
      if (token.type === 'image') token.attrSet('src', resolve(token.attrGet('src') ?? ''));
      if (token.children) visit(token.children);
    }
  };
  visit(tokens);
}

const mentionPattern = /(^|[\s([])@([\w](?:[\w.-]*[\w])?)(?=$|[\s.,;:!?)\]])/g;

/** Text tokens outside links, where a mention may be. */
function* mentionableTexts(tokens: Token[]): Generator<{ list: Token[]; index: number }> {
  for (const token of tokens) {
    if (token.type !== 'inline' || !token.children) continue;
    let depth = 0;
    for (let index = 0; index < token.children.length; index++) {
      const child = token.children[index];
      if (child.type === 'link_open') depth++;
      else if (child.type === 'link_close') depth--;
      else if (child.type === 'text' && depth === 0) yield { list: token.children, index };
    }
  }
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `@name` of an account the viewer may see becomes a link to its page, as Gitea's mention processor does. */
async function linkMentions(db: Queryable, tokens: Token[], rootUrl: string, viewer: UserRow | null): Promise<void> {
  const names = new Set<string>();
  for (const { list, index } of mentionableTexts(tokens)) {
    for (const match of list[index].content.matchAll(mentionPattern)) names.add(match[2].toLowerCase());
  }
  if (names.size === 0) return;
  const found = await db.query<{ lower_name: string; name: string }>(
    'SELECT lower_name, name FROM "user" WHERE lower_name = ANY($1::text[]) AND visibility = ANY($2::int[])',
    [[...names], visibleTo(viewer).map((visibility) => visibilities.indexOf(visibility))],
  );
  const known = new Map(found.map((user) => [user.lower_name, user.name]));
  if (known.size === 0) return;
  const spots = [...mentionableTexts(tokens)].reverse();
  for (const { list, index } of spots) {
    const text = list[index].content;
    const parts: Token[] = [];
    let last = 0;
    for (const match of text.matchAll(mentionPattern)) {
      const name = known.get(match[2].toLowerCase());
      if (!name) continue;
      const start = match.index + match[1].length;
      const plain = new Token('text', '', 0);
      plain.content = text.slice(last, start);
      const link = new Token('html_inline', '', 0);
      link.content = `<a href="${escapeHtml(`${rootUrl}${encodeURIComponent(name)}`)}" class="mention">@${escapeHtml(match[2])}</a>`;
      parts.push(plain, link);
      last = start + 1 + match[2].length;
    }
    if (parts.length === 0) continue;
    const rest = new Token('text', '', 0);
    rest.content = text.slice(last);
    list.splice(index, 1, ...parts, rest);
  }
}

function baseOf(context: string | undefined, rootUrl: string): string | null {
  if (!context) return null;
  const base = /^https?:\/\//i.test(context) ? context : `${rootUrl}${context.replace(/^\/+/, '')}`;
  return base.replace(/\/+$/, '');
}

/**
 * Renders markup as Gitea's /markdown and /markup do, to sanitized HTML. An unknown mode, or a file that is not
 * markdown in mode `file`, is refused with 422.
 */
export async function renderMarkup(db: Queryable, request: MarkupRequest, rootUrl: string, viewer: UserRow | null): Promise<string> {
  const mode = (request.mode || 'markdown') as MarkupMode;
  if (!['markdown', 'gfm', 'comment', 'wiki', 'file'].includes(mode)) throw invalid(`Unknown mode: ${request.mode}`);
  if (mode === 'file') {
    const name = (request.filePath ?? '').toLowerCase();
    if (!markdownExtensions.some((extension) => name.endsWith(extension))) throw invalid(`unsupported file to render: "${request.filePath ?? ''}"`);
  }
  const md = mode === 'comment' ? comments : documents;
  const env = {};
  const tokens = md.parse(request.text, env);
  addHeadingIds(tokens);
  addTaskLists(tokens);
  resolveLinks(tokens, rootUrl, baseOf(request.context, rootUrl));
  if (mode !== 'markdown') await linkMentions(db, tokens, rootUrl, viewer);
  return sanitizeHtml(md.renderer.render(tokens, md.options, env), policy);
}
