import { badRequest, notFound } from '../../../db/errors.js';
import type { CommitObject } from '../../../db/git/objects.js';
import { isFullOid, isValidRefPattern } from '../../../db/git/objects.js';
import type { GitReader } from '../../../db/git/read.js';
import { cleanTreePath } from '../../../db/models/code/contents.js';
import type { Reply } from '../../http/route.js';
import type { GitView } from './git-data.js';

/** A file to serve: the commit it is read from and its path in that commit's tree. */
export interface RawTarget {
  commit: CommitObject;
  treePath: string;
}

/** How a web download path names its commit (Gitea's RepoRefByType): `/raw/branch/…`, `/raw/tag/…`, `/raw/commit/…`. */
export type RefKind = 'branch' | 'tag' | 'commit';

/** The shortest leading segments of `filepath` that `lookup` resolves to a commit, and the rest as the tree path. */
async function leadingRef(reader: GitReader, filepath: string, lookup: (name: string) => Promise<string | null>): Promise<RawTarget | null> {
  const parts = filepath.split('/');
  for (let i = 1; i < parts.length; i++) {
    const name = parts.slice(0, i).join('/');
    const oid = isValidRefPattern(name) ? await lookup(name) : null;
    const commit = oid ? await reader.objects.peelToCommit(oid) : null;
    if (commit) return { commit, treePath: parts.slice(i).join('/') };
  }
  return null;
}

/** `{commit id}/{path}`, the id full or abbreviated to at least 7 digits. */
async function leadingCommit(reader: GitReader, filepath: string, fullOnly: boolean): Promise<RawTarget | null> {
  const [id, ...rest] = filepath.split('/');
  const fits = fullOnly ? isFullOid(id, reader.format) : /^[0-9a-f]{7,64}$/.test(id);
  if (rest.length === 0 || !fits) return null;
  const commit = await reader.findCommit(id);
  return commit ? { commit, treePath: rest.join('/') } : null;
}

/** The commit and file a typed web path names: `main/docs/a.md` under `branch`, `v1.0/a.md` under `tag`, `{id}/a.md` under `commit`. */
export function typedRawTarget(reader: GitReader, kind: RefKind, filepath: string): Promise<RawTarget | null> {
  if (kind === 'branch') return leadingRef(reader, filepath, (name) => reader.branchHead(name));
  if (kind === 'tag') return leadingRef(reader, filepath, (name) => reader.tagTarget(name));
  return leadingCommit(reader, filepath, false);
}

/**
 * Gitea's RepoRefForAPI for raw files (and its legacy web paths): the `ref` query, or else the path's leading segments
 * naming a branch, then a tag, then a full commit id; without any of those the whole path is read from the default branch.
 */
export async function rawTarget(reader: GitReader, defaultBranch: string, filepath: string, ref: string | undefined): Promise<RawTarget | null> {
  if (ref) {
    const commit = await reader.findCommit(ref);
    return commit ? { commit, treePath: filepath } : null;
  }
  const found = (await typedRawTarget(reader, 'branch', filepath))
    ?? (await typedRawTarget(reader, 'tag', filepath))
    ?? (await leadingCommit(reader, filepath, true));
  if (found || (filepath.includes('/') && isFullOid(filepath.split('/')[0], reader.format))) return found;
  const commit = await reader.findCommit(defaultBranch);
  return commit ? { commit, treePath: filepath } : null;
}

export const mediaTypes: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon',
  avif: 'image/avif', svg: 'image/svg+xml', pdf: 'application/pdf', mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg',
  ogg: 'audio/ogg', wav: 'audio/wav', flac: 'audio/flac', zip: 'application/zip', gz: 'application/gzip', tgz: 'application/gzip',
  tar: 'application/x-tar', '7z': 'application/x-7z-compressed', wasm: 'application/wasm', woff: 'font/woff', woff2: 'font/woff2',
};

/** By extension for media; otherwise text is served as plain text (never as HTML) and anything with a NUL byte as binary. */
function contentTypeOf(name: string, head: Buffer | null): string {
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  if (mediaTypes[extension]) return mediaTypes[extension];
  if (head && !head.subarray(0, 8000).includes(0)) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

export function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Files up to this size are read in-process and sniffed; larger ones stream from `git cat-file`. */
const inMemoryLimit = 1024 * 1024;

/** A blob as a download: sniffed type, inline disposition under `name`, a sandboxing CSP, its id as the ETag. */
export async function blobReply(view: GitView, oid: string, name: string, kind: 'file' | 'symlink'): Promise<Reply> {
  const size = await view.reader.sizeOf(oid);
  const small = size <= inMemoryLimit ? await view.reader.readBlob(oid) : null;
  const headers = {
    'Content-Type': contentTypeOf(name, small),
    'Content-Length': String(size),
    'Content-Disposition': disposition('inline', name),
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'X-Content-Type-Options': 'nosniff',
    'X-Gitea-Object-Type': kind,
    ETag: `"${oid}"`,
    'Cache-Control': 'private, max-age=300',
  };
  return { status: 200, headers, content: small ?? view.reader.streamBlob(oid) };
}

/** The file at a target, as a download; a directory or a missing path is a 404. */
export async function rawFileReply(view: GitView, target: RawTarget | null, asked: string): Promise<Reply> {
  if (!target) throw notFound(`not exist: '${asked}'`);
  const treePath = cleanTreePath(target.treePath);
  const entry = treePath ? await view.reader.entryAt(target.commit, treePath) : null;
  if (!entry || entry.type !== 'blob') throw notFound(`object does not exist [path: ${target.treePath}]`);
  return blobReply(view, entry.oid, entry.name, entry.mode === '120000' ? 'symlink' : 'file');
}

/** A blob by its id (`/raw/blob/{sha}`), named after the id as Gitea names it. */
export async function blobByIdReply(view: GitView, oid: string): Promise<Reply> {
  const found = isFullOid(oid, view.reader.format) ? await view.reader.objects.read(oid) : null;
  if (found?.type !== 'blob') throw notFound(`blob ${oid} does not exist`);
  return blobReply(view, oid, oid, 'file');
}

const archiveFormats = [
  { suffix: '.tar.gz', format: 'tar.gz', type: 'application/gzip' },
  { suffix: '.zip', format: 'zip', type: 'application/zip' },
] as const;

/** `{ref}.zip` or `{ref}.tar.gz` of a repository, streamed from `git archive` under a `{repo}/` prefix. */
export async function archiveReply(view: GitView, repoName: string, archive: string): Promise<Reply> {
  const kind = archiveFormats.find((candidate) => archive.endsWith(candidate.suffix));
  if (!kind) throw badRequest(`unknown archive format: ${archive}`);
  const ref = archive.slice(0, -kind.suffix.length);
  const commit = ref && isValidRefPattern(ref) ? await view.reader.findCommit(ref) : null;
  if (!commit) throw notFound(`unrecognized reference: ${ref}`);
  const headers = {
    'Content-Type': kind.type,
    'Content-Disposition': disposition('attachment', `${repoName}-${ref.replace(/\//g, '-')}.${kind.format}`),
    Link: `<${view.links.api}/archive/${commit.oid}.${kind.format}?rev=${commit.oid}>; rel="immutable"`,
  };
  return { status: 200, headers, content: view.reader.archive(commit.oid, kind.format, `${repoName}/`) };
}
