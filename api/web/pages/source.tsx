import hljs from 'highlight.js/lib/common';
import { notFound } from '../../../db/errors.js';
import type { GitReader } from '../../../db/git/read.js';
import { cleanTreePath, readContentsOrList, type ContentsItem, type ContentsRef } from '../../../db/models/code/contents.js';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import type { Deps } from '../../deps.js';
import { mediaTypes, typedRawTarget, type RefKind } from '../../routes/code/file-downloads.js';
import type { LoadedRepo } from '../../context/repo.js';
import { page, type PageContext } from '../page.js';
import { loadWebRepo } from '../web-repo.js';
import { useHref } from './site.js';

/** Files larger than this are not shown on the page, only offered as the raw file. */
export const displayLimit = 1024 * 1024;
/** Files up to this size are highlighted; larger ones (up to the display limit) are shown as plain text. */
const highlightLimit = 256 * 1024;

/** Where a source path points: the ref as Gitea names it, its kind, and the path inside the tree. */
export interface SourceAt {
  kind: RefKind;
  ref: string;
  treePath: string;
  contents: ContentsRef;
}

/**
 * `{ref}/{path}` under a ref kind, resolved as the raw download routes resolve it (Gitea's getRefNameFromPath: the
 * first leading segments that name a branch or tag, so `feature/x/docs` is branch `feature/x` when it exists).
 */
export async function resolveSourcePath(reader: GitReader, kind: RefKind, rest: string): Promise<SourceAt | null> {
  if (rest.includes('\u0000')) return null;
  const trimmed = rest.replace(/\/+$/, '');
  const target = trimmed ? await typedRawTarget(reader, kind, `${trimmed}/`) : null;
  if (!target) return null;
  const asked = trimmed.slice(0, trimmed.length - target.treePath.length).replace(/\/$/, '');
  const ref = kind === 'commit' ? target.commit.oid : asked;
  const treePath = cleanTreePath(target.treePath);
  if (target.treePath.replace(/\/+$/, '') && !treePath) return null;
  return { kind, ref, treePath, contents: { commit: target.commit, asked, ref, refType: kind } };
}

type FileView =
  | { kind: 'too-large' }
  | { kind: 'binary' }
  | { kind: 'image' }
  | { kind: 'markdown'; html: string }
  | { kind: 'text'; lines: number; html: string | null; text: string; invalidUtf8: boolean };

const extensionOf = (name: string): string => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer): { text: string; invalid: boolean } {
  try {
    return { text: utf8.decode(bytes), invalid: false };
  } catch {
    return { text: bytes.toString('utf8'), invalid: true };
  }
}

/**
 * Highlighted blobs by blob id and language, most recently used last: a blob never changes, and highlighting a
 * 1,000-line file costs tens of milliseconds, far more than reading it.
 */
const recentHighlights = new Map<string, string>();
const highlightCacheChars = 16 * 1024 * 1024;
let cachedChars = 0;

function remember(key: string, html: string): string {
  recentHighlights.set(key, html);
  cachedChars += html.length;
  for (const [oldest, value] of recentHighlights) {
    if (cachedChars <= highlightCacheChars) break;
    recentHighlights.delete(oldest);
    cachedChars -= value.length;
  }
  return html;
}

/** highlight.js escapes the text it is given; its output is the only HTML a file view places unescaped. */
function highlighted(oid: string, name: string, text: string): string | null {
  const extension = extensionOf(name);
  const language = hljs.getLanguage(extension) ? extension : /^(makefile|dockerfile)$/i.test(name) ? name.toLowerCase() : null;
  if (!language || text.length > highlightLimit) return null;
  const key = `${oid}\0${language}`;
  const known = recentHighlights.get(key);
  if (known !== undefined) {
    recentHighlights.delete(key);
    recentHighlights.set(key, known);
    return known;
  }
  return remember(key, hljs.highlight(text, { language, ignoreIllegals: true }).value);
}

async function viewFile(deps: Deps, loaded: LoadedRepo, at: SourceAt, item: ContentsItem): Promise<FileView> {
  if (mediaTypes[extensionOf(item.name)]?.startsWith('image/')) return { kind: 'image' };
  if (item.size > displayLimit) return { kind: 'too-large' };
  const bytes = item.content ?? Buffer.alloc(0);
  if (bytes.subarray(0, 8000).includes(0)) return { kind: 'binary' };
  const { text, invalid } = decode(bytes);
  if (/\.(md|markdown)$/i.test(item.name) && !invalid) {
    const context = `${loaded.owner.name}/${loaded.repo.name}/src/${at.kind}/${at.ref}`;
    return { kind: 'markdown', html: await renderMarkup(deps.db, { text, mode: 'gfm', context }, deps.config.rootUrl, loaded.caller.user) };
  }
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return { kind: 'text', lines, html: invalid ? null : highlighted(item.sha, item.name, text), text, invalidUtf8: invalid };
}

function Breadcrumbs({ loaded, at }: { loaded: LoadedRepo; at: SourceAt }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  const parts = at.treePath ? at.treePath.split('/') : [];
  const base = [owner, name, 'src', at.kind, ...at.ref.split('/')];
  return (
    <p class="breadcrumbs mono">
      <a href={href(owner)}>{owner}</a> / <a href={href(owner, name)}>{name}</a>
      {' '}<span class="label">{at.kind === 'commit' ? at.ref.slice(0, 10) : at.ref}</span>{' '}
      <a href={href(...base)}>{name}</a>
      {parts.map((part, i) => <span key={i}> / <a href={href(...base, ...parts.slice(0, i + 1))}>{part}</a></span>)}
    </p>
  );
}

export function Listing({ loaded, at, entries }: { loaded: LoadedRepo; at: Pick<SourceAt, 'kind' | 'ref'>; entries: ContentsItem[] }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  const sorted = [...entries].sort((a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || a.name.localeCompare(b.name));
  return (
    <table class="files">
      <tbody>
        {sorted.map((entry) => (
          <tr key={entry.path}>
            <td class="mono">
              {entry.type === 'file' || entry.type === 'dir' || entry.type === 'symlink'
                ? <a href={href(owner, name, 'src', at.kind, ...at.ref.split('/'), ...entry.path.split('/'))}>{entry.type === 'dir' ? `${entry.name}/` : entry.name}</a>
                : <span title={entry.submoduleUrl ?? ''}>{entry.name} @ {entry.sha.slice(0, 10)}</span>}
            </td>
            <td class="muted mono">{entry.type === 'file' ? `${entry.size} B` : ''}</td>
            <td class="muted mono when"><a href={href(owner, name, 'commit', entry.lastCommitSha)}>{entry.lastCommitSha.slice(0, 10)}</a></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function FileBody({ view, raw }: { view: FileView; raw: string }) {
  if (view.kind === 'image') return <p><img class="file-image" src={raw} alt="" /></p>;
  if (view.kind === 'too-large') return <p class="notice">This file is too large to show here. <a href={raw}>View the raw file</a>.</p>;
  if (view.kind === 'binary') return <p class="notice">Binary file, not shown. <a href={raw}>View the raw file</a>.</p>;
  if (view.kind === 'markdown') return <div class="markdown" dangerouslySetInnerHTML={{ __html: view.html }} />;
  const numbers = Array.from({ length: view.lines }, (_, i) => i + 1);
  return (
    <>
      {view.invalidUtf8 ? <p class="notice">This file is not valid UTF-8; invalid bytes are shown as �.</p> : null}
      <div class="code-view">
        <pre class="line-numbers">{numbers.map((n) => <a key={n} id={`L${n}`} href={`#L${n}`}>{n}{'\n'}</a>)}</pre>
        {view.html !== null
          ? <pre class="code"><code class="hljs" dangerouslySetInnerHTML={{ __html: view.html }} /></pre>
          : <pre class="code"><code>{view.text}</code></pre>}
      </div>
    </>
  );
}

function SourcePage({ loaded, at, listed, view }: { loaded: LoadedRepo; at: SourceAt; listed: ContentsItem | ContentsItem[]; view: FileView | null }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  if (Array.isArray(listed)) {
    return (
      <>
        <Breadcrumbs loaded={loaded} at={at} />
        <Listing loaded={loaded} at={at} entries={listed} />
      </>
    );
  }
  const raw = href(owner, name, 'raw', at.kind, ...at.ref.split('/'), ...at.treePath.split('/'));
  return (
    <>
      <Breadcrumbs loaded={loaded} at={at} />
      <p class="file-head">
        <span class="mono">{listed.size} bytes</span>{' '}
        <a href={raw}>Raw</a>{' '}
        <a class="muted mono" href={href(owner, name, 'commit', listed.lastCommitSha)}>{listed.lastCommitSha.slice(0, 10)}</a>
      </p>
      {listed.type === 'symlink'
        ? <p class="notice">Symbolic link to <span class="mono">{listed.target}</span></p>
        : view ? <FileBody view={view} raw={raw} /> : null}
    </>
  );
}

async function sourcePage({ deps, caller, params }: PageContext, kind: RefKind) {
  const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
  const reader = deps.git.open(loaded.repo);
  if (!(await reader.hasBranches())) throw notFound();
  const at = await resolveSourcePath(reader, kind, params.path ?? '');
  if (!at) throw notFound();
  const listed = await readContentsOrList(reader, at.contents, at.treePath);
  if (!listed) throw notFound();
  const view = !Array.isArray(listed) && listed.type === 'file' ? await viewFile(deps, loaded, at, listed) : null;
  const title = `${at.treePath || loaded.repo.name} at ${at.kind === 'commit' ? at.ref.slice(0, 10) : at.ref} · ${loaded.owner.name}/${loaded.repo.name}`;
  return { title, body: <SourcePage loaded={loaded} at={at} listed={listed} view={view} /> };
}

/** `/{owner}/{repo}/src/{branch|tag|commit}/{ref}/{path}`: a directory's entries or a file, read as the contents API reads them. */
export const sourcePages = (['branch', 'tag', 'commit'] as const).map((kind) =>
  page({ path: `/{owner}/{repo}/src/${kind}/{path}`, rest: 'path', handle: (ctx) => sourcePage(ctx, kind) }));
