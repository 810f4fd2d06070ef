import MarkdownIt from 'markdown-it';

/**
 * Issue references in text, as Gitea's modules/references parses them (pure: no database). `#N` and `!N` name an
 * issue or pull request of the same repository, `owner/repo#N` one of another; a closing keyword (`closes #1`) or a
 * reopening keyword (`reopens #1`) right before a reference, followed by an optional colon and one space, gives it
 * an action. Full links of this instance (`{root}owner/repo/issues/N`, `.../pulls/N`) count as `owner/repo#N`.
 */

export const closeKeywords = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved'] as const;
export const reopenKeywords = ['reopen', 'reopens', 'reopened'] as const;

export type ReferenceAction = 'none' | 'closes' | 'reopens';

export interface IssueReference {
  index: number;
  /** Lower-cased; both absent for a reference into the same repository. */
  owner?: string;
  name?: string;
  action: ReferenceAction;
}

// Go's RE2 `\s` is ASCII whitespace only
const space = '[\\t\\n\\f\\r ]';
const end = `(?=${space}|$|[)\\]]|[:;,.?!](?:${space}|$))`;
const numericPattern = new RegExp(`(?<=^|${space}|[(\\['"])([#!][0-9]+)(?=${space}|$|[)\\]'"]|[:;,.?!](?:${space}|$))`, 'g');
const crossPattern = new RegExp(`(?<=^|${space}|[(\\[])([0-9a-zA-Z_.-]+/[0-9a-zA-Z_.-]+[#!][0-9]+)${end}`, 'g');
const validName = /^[a-z0-9_.-]+$/;
const keywordPattern = (words: readonly string[]): RegExp => new RegExp(`(?:${space}|^|\\(|\\[)(${words.join('|')}):? $`, 'i');
const closePattern = keywordPattern(closeKeywords);
const reopenPattern = keywordPattern(reopenKeywords);

function actionBefore(text: string, start: number): ReferenceAction {
  // the keyword, a colon and a space at most: a window of the longest keyword plus four characters is enough
  const prefix = text.slice(Math.max(0, start - 12), start);
  if (closePattern.test(prefix)) return 'closes';
  if (reopenPattern.test(prefix)) return 'reopens';
  return 'none';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{root}owner/repo/issues/N` → `owner/repo#N`, `.../pulls/N` → `owner/repo!N` (Gitea's convertFullHTMLReferencesToShortRefs). */
function shortenLinks(text: string, rootUrl: string): string {
  const link = new RegExp(
    `(?<=^|${space}|[(\\[])${escapeRegExp(rootUrl.trim())}([0-9a-zA-Z_.-]+/[0-9a-zA-Z_.-]+)/(issues|pulls)/([0-9]+)${end}`, 'g',
  );
  return text.replace(link, (_, repo: string, kind: string, index: string) => `${repo}${kind === 'pulls' ? '!' : '#'}${index}`);
}

const markdown = new MarkdownIt({ html: true, linkify: true });

/**
 * The plain text of a markdown document as Gitea's mdstripper writes it: text only (code blocks, code spans and HTML
 * left out), a line break between text pieces that are not neighbours, this instance's bare issue and pull request
 * links as `owner/repo#N` (`!N`); the destinations of written links are answered beside it, to be read as references
 * without an action.
 */
export function stripMarkdown(source: string, rootUrl?: string): { text: string; links: string[] } {
  let text = '';
  const links: string[] = [];
  const write = (piece: string, coalesce: boolean): void => {
    if (!coalesce && text) text += '\n';
    text += piece;
  };
  for (const block of markdown.parse(source, {})) {
    const children = block.type === 'inline' ? (block.children ?? []) : [];
    for (let i = 0; i < children.length; i += 1) {
      const token = children[i];
      if (token.type === 'text') write(token.content, children[i - 1]?.type === 'text');
      else if (token.type === 'softbreak' || token.type === 'hardbreak') text += text ? '\n' : '';
      else if (token.type === 'link_open') {
        const href = token.attrGet('href') ?? '';
        const short = token.markup === 'linkify' || token.markup === 'autolink' ? shortLink(href, rootUrl) : null;
        if (short) write(short, true);
        else links.push(href);
        while (i < children.length && children[i].type !== 'link_close') i += 1;
      }
    }
  }
  return { text, links };
}

/** `{root}owner/repo/issues/N` → `owner/repo#N`, `.../pulls/N` → `owner/repo!N`; anything else null. */
function shortLink(href: string, rootUrl?: string): string | null {
  if (!rootUrl || !href.toLowerCase().startsWith(rootUrl.toLowerCase())) return null;
  const parts = href.slice(rootUrl.length).split('/');
  if (parts.length !== 4 || !/^[0-9]+$/.test(parts[3]) || (parts[2] !== 'issues' && parts[2] !== 'pulls')) return null;
  return `${parts[0]}/${parts[1]}${parts[2] === 'pulls' ? '!' : '#'}${parts[3]}`;
}

/**
 * Every reference in `text`, in Gitea's order: the same-repository ones first, then the cross-repository ones.
 * `rootUrl` (with its trailing slash) turns this instance's full links into references.
 */
export function findIssueReferences(text: string, rootUrl?: string): IssueReference[] {
  const content = rootUrl ? shortenLinks(text, rootUrl) : text;
  const found: IssueReference[] = [];
  for (const match of content.matchAll(numericPattern)) {
    const index = Number(match[1].slice(1));
    if (Number.isSafeInteger(index)) found.push({ index, action: actionBefore(content, match.index) });
  }
  for (const match of content.matchAll(crossPattern)) {
    const [repo, number] = match[1].split(/[#!]/);
    const parts = repo.toLowerCase().split('/');
    const index = Number(number);
    if (parts.length !== 2 || !validName.test(parts[0]) || !validName.test(parts[1]) || !Number.isSafeInteger(index)) continue;
    found.push({ index, owner: parts[0], name: parts[1], action: actionBefore(content, match.index) });
  }
  return found;
}

/**
 * References in a markdown text (an issue or pull request description), as Gitea's FindAllIssueReferencesMarkdown:
 * read from its stripped text, then this instance's issue links written as markdown links (without an action).
 */
export function findMarkdownIssueReferences(source: string, rootUrl?: string): IssueReference[] {
  const { text, links } = stripMarkdown(source, rootUrl);
  const found = findIssueReferences(text);
  for (const link of links) {
    const short = shortLink(link, rootUrl);
    const ref = short ? findIssueReferences(short).find((r) => r.owner) : undefined;
    if (ref) found.push({ ...ref, action: 'none' });
  }
  return found;
}
