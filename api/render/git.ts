import type { CommitObject, ObjectType, Signature, TagObject } from '../../db/git/objects.js';
import type { FileChange, ListedEntry, RefInfo, TagInfo } from '../../db/git/read.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import type { CommitView } from '../../db/views/commits.js';
import { renderUser, type ApiUser, type RenderContext } from './user.js';

/** The API and web addresses of one repository, which every git object's links start from. */
export interface RepoLinks {
  api: string;
  html: string;
}

export function repoLinks(rootUrl: string, owner: string, repo: string): RepoLinks {
  return { api: `${rootUrl}api/v1/repos/${owner}/${repo}`, html: `${rootUrl}${owner}/${repo}` };
}

/** Go's url.PathEscape for one segment. */
export function pathEscape(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/%(24|26|2B|3A|3D|40)/g, (escaped) => decodeURIComponent(escaped))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Gitea's util.PathEscapeSegments: each segment of a path escaped, the slashes kept. */
export function pathEscapeSegments(path: string): string {
  return path.split('/').map(pathEscape).join('/');
}

/** Go's url.QueryEscape. */
export function queryEscape(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const zeroTime = '0001-01-01T00:00:00Z';

/** A signature's moment in RFC 3339, in the signer's own zone (Go's time.Time JSON form). */
export function gitTime(signature: Pick<Signature, 'timestamp' | 'offset'> | null | undefined): string {
  if (!signature) return zeroTime;
  const local = new Date((signature.timestamp + signature.offset * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  if (signature.offset === 0) return `${local}Z`;
  const sign = signature.offset < 0 ? '-' : '+';
  const minutes = Math.abs(signature.offset);
  return `${local}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The same moment in UTC, as FileCommitResponse shows it. */
export function gitTimeUtc(signature: Pick<Signature, 'timestamp'>): string {
  return new Date(signature.timestamp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface ApiCommitUser {
  name: string;
  email: string;
  date: string;
}

export interface ApiCommitMeta {
  url: string;
  sha: string;
  created: string;
}

export interface ApiPayloadUser {
  name: string;
  email: string;
  username: string;
}

export interface ApiVerification {
  verified: boolean;
  reason: string;
  signature: string;
  signer: ApiPayloadUser | null;
  payload: string;
}

/** The PayloadCommit definition (Gitea leaves the file lists null outside push payloads). */
export interface ApiPayloadCommit {
  id: string;
  message: string;
  url: string;
  author: ApiPayloadUser;
  committer: ApiPayloadUser;
  verification: ApiVerification | null;
  timestamp: string;
  added: string[] | null;
  removed: string[] | null;
  modified: string[] | null;
}

/**
 * Hearth keeps no signing keys, so nothing verifies: unsigned objects say so as Gitea does, signed ones show
 * their signature and payload with the reason Gitea gives when no key matches.
 */
export function renderVerification(signed: { signature: string; payload: string }): ApiVerification {
  if (!signed.signature) return { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' };
  return { verified: false, reason: 'gpg.error.no_gpg_keys_found', signature: signed.signature, signer: null, payload: signed.payload };
}

export function renderCommitUser(signature: Signature, utc = false): ApiCommitUser {
  return { name: signature.name, email: signature.email, date: utc ? gitTimeUtc(signature) : gitTime(signature) };
}

/** Gitea's Reference: a ref and the object it names. */
export interface ApiReference {
  ref: string;
  url: string;
  object: { sha: string; type: string; url: string };
}

export function renderReference(links: RepoLinks, ref: RefInfo): ApiReference {
  return {
    ref: ref.name,
    url: `${links.api}/git/${ref.name}`,
    object: { sha: ref.oid, type: ref.type, url: `${links.api}/git/${ref.type}s/${ref.oid}` },
  };
}

export interface ApiGitEntry {
  path: string;
  mode: string;
  type: string;
  size: number;
  sha: string;
  url: string;
}

export interface ApiGitTree {
  sha: string;
  url: string;
  tree: ApiGitEntry[] | null;
  truncated: boolean;
  page: number;
  total_count: number;
}

export interface TreePage {
  sha: string;
  entries: ListedEntry[] | null;
  truncated: boolean;
  page: number;
  total: number;
}

export function renderTree(links: RepoLinks, page: TreePage): ApiGitTree {
  const urlOf = (entry: ListedEntry): string => {
    if (entry.type === 'tree') return `${links.api}/git/trees/${entry.oid}`;
    if (entry.type === 'commit') return '';
    return `${links.api}/git/blobs/${entry.oid}`;
  };
  return {
    sha: page.sha,
    url: `${links.api}/git/trees/${pathEscape(page.sha)}`,
    tree: page.entries?.map((entry) => ({
      path: entry.path, mode: entry.mode, type: entry.type, size: entry.size, sha: entry.oid, url: urlOf(entry),
    })) ?? null,
    truncated: page.truncated,
    page: page.page,
    total_count: page.total,
  };
}

export interface ApiGitBlob {
  content: string;
  encoding: string;
  url: string;
  sha: string;
  size: number;
}

/** A blob, base64-encoded; `content` is empty for blobs past the size limit. */
export function renderBlob(links: RepoLinks, oid: string, size: number, content: Buffer | null): ApiGitBlob {
  return { content: content ? content.toString('base64') : '', encoding: 'base64', url: `${links.api}/git/blobs/${pathEscape(oid)}`, sha: oid, size };
}

export interface ApiCommit {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  commit: {
    url: string;
    author: ApiCommitUser;
    committer: ApiCommitUser;
    message: string;
    tree: ApiCommitMeta;
    verification: ApiVerification | null;
  };
  author: ApiUser | null;
  committer: ApiUser | null;
  parents: ApiCommitMeta[];
  files: Array<{ filename: string; status: FileChange['status'] }> | null;
  stats: { total: number; additions: number; deletions: number } | null;
}

export interface CommitRendering {
  links: RepoLinks;
  viewer: UserRow | null;
  render: RenderContext;
  verification: boolean;
}

/** Gitea's ToCommit. */
export function renderCommit(view: CommitView, ctx: CommitRendering): ApiCommit {
  const { commit } = view;
  const userOf = (user: UserRow | null): ApiUser | null => (user ? renderUser(user, ctx.viewer, ctx.render) : null);
  const url = `${ctx.links.api}/git/commits/${pathEscape(commit.oid)}`;
  const created = gitTime(commit.committer);
  return {
    url,
    sha: commit.oid,
    created,
    html_url: `${ctx.links.html}/commit/${pathEscape(commit.oid)}`,
    commit: {
      url,
      author: renderCommitUser(commit.author),
      committer: renderCommitUser(commit.committer),
      message: commit.message,
      tree: { url: `${ctx.links.api}/git/trees/${pathEscape(commit.oid)}`, sha: commit.oid, created },
      verification: ctx.verification ? renderVerification(commit) : null,
    },
    author: userOf(view.author),
    committer: userOf(view.committer),
    parents: commit.parents.map((parent) => ({ url: `${ctx.links.api}/git/commits/${pathEscape(parent)}`, sha: parent, created: zeroTime })),
    files: view.files ? view.files.map((file) => ({ filename: file.filename, status: file.status })) : null,
    stats: view.stats ? { total: view.stats.additions + view.stats.deletions, additions: view.stats.additions, deletions: view.stats.deletions } : null,
  };
}

export interface ApiNote {
  message: string;
  commit: ApiCommit;
}

export function renderNote(message: Buffer, commit: ApiCommit): ApiNote {
  return { message: message.toString('utf8'), commit };
}

export interface ApiAnnotatedTag {
  tag: string;
  sha: string;
  url: string;
  message: string;
  tagger: ApiCommitUser | null;
  object: { type: string; url: string; sha: string };
  verification: ApiVerification;
}

/** Gitea's ToAnnotatedTag: the object is the commit the tag leads to, verified like that commit. */
export function renderAnnotatedTag(links: RepoLinks, tag: TagObject, commit: CommitObject): ApiAnnotatedTag {
  return {
    tag: tag.name,
    sha: tag.oid,
    url: `${links.api}/git/tags/${tag.oid}`,
    message: tag.message,
    tagger: tag.tagger ? renderCommitUser(tag.tagger, true) : null,
    object: { type: 'commit' satisfies ObjectType, url: `${links.api}/git/commits/${commit.oid}`, sha: commit.oid },
    verification: renderVerification(commit),
  };
}

export interface ApiTag {
  name: string;
  message: string;
  id: string;
  commit: ApiCommitMeta;
  zipball_url: string;
  tarball_url: string;
}

/** Gitea's ToTag (whose commit url names the tag id, as Gitea's does). */
export function renderTag(links: RepoLinks, tag: TagInfo): ApiTag {
  return {
    name: tag.name,
    message: tag.message.trim(),
    id: tag.id,
    commit: { url: `${links.api}/git/commits/${tag.id}`, sha: tag.target, created: gitTime(tag.when) },
    zipball_url: `${links.html}/archive/${tag.name}.zip`,
    tarball_url: `${links.html}/archive/${tag.name}.tar.gz`,
  };
}

export interface ApiCompare {
  total_commits: number;
  commits: ApiCommit[];
}

export function renderCompare(commits: ApiCommit[]): ApiCompare {
  return { total_commits: commits.length, commits };
}
