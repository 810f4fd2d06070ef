import type { CommitObject } from '../../db/git/objects.js';
import type { ContentsItem, ContentsRef } from '../../db/models/code/contents.js';
import {
  pathEscape,
  pathEscapeSegments,
  queryEscape,
  renderCommitUser,
  renderVerification,
  type ApiCommitMeta,
  type ApiCommitUser,
  type ApiVerification,
  type RepoLinks,
} from './git.js';

/** The ContentsResponse definition of the Gitea 1.22 API description. */
export interface ApiContents {
  name: string;
  path: string;
  sha: string;
  last_commit_sha: string;
  type: string;
  size: number;
  encoding: string | null;
  content: string | null;
  target: string | null;
  url: string | null;
  html_url: string | null;
  git_url: string | null;
  download_url: string | null;
  submodule_git_url: string | null;
  _links: { self: string | null; git: string | null; html: string | null };
}

/** Gitea's GetContents: links name the ref as it was asked for (`url`) and as a typed ref (`html_url`, `download_url`). */
export function renderContents(links: RepoLinks, at: ContentsRef, item: ContentsItem): ApiContents {
  const self = `${links.api}/contents/${pathEscapeSegments(item.path)}?ref=${queryEscape(at.asked)}`;
  const typed = `${pathEscape(at.refType)}/${pathEscapeSegments(at.ref)}/${pathEscapeSegments(item.path)}`;
  const browsable = item.type !== 'submodule';
  const html = browsable ? `${links.html}/src/${typed}` : null;
  const git = browsable ? `${links.api}/git/blobs/${pathEscape(item.sha)}` : null;
  return {
    name: item.name,
    path: item.path,
    sha: item.sha,
    last_commit_sha: item.lastCommitSha,
    type: item.type,
    size: item.size,
    encoding: item.content ? 'base64' : null,
    content: item.content ? item.content.toString('base64') : null,
    target: item.target,
    url: self,
    html_url: html,
    git_url: git,
    download_url: item.type === 'file' || item.type === 'symlink' ? `${links.html}/raw/${typed}` : null,
    submodule_git_url: item.submoduleUrl,
    _links: { self, git, html },
  };
}

/** The FileCommitResponse definition: the commit a contents write made. */
export interface ApiFileCommit {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  author: ApiCommitUser;
  committer: ApiCommitUser;
  parents: ApiCommitMeta[];
  message: string;
  tree: ApiCommitMeta;
}

const zeroTime = '0001-01-01T00:00:00Z';

export function renderFileCommit(links: RepoLinks, commit: CommitObject): ApiFileCommit {
  return {
    url: `${links.api}/git/commits/${pathEscape(commit.oid)}`,
    sha: commit.oid,
    created: zeroTime,
    html_url: `${links.html}/commit/${pathEscape(commit.oid)}`,
    author: renderCommitUser(commit.author, true),
    committer: renderCommitUser(commit.committer, true),
    parents: commit.parents.map((parent) => ({ url: `${links.api}/git/commits/${pathEscape(parent)}`, sha: parent, created: zeroTime })),
    message: commit.message,
    tree: { url: `${links.api}/git/trees/${pathEscape(commit.tree)}`, sha: commit.tree, created: zeroTime },
  };
}

export interface ApiFileResponse {
  content: ApiContents | null;
  commit: ApiFileCommit;
  verification: ApiVerification;
}

export interface ApiFilesResponse {
  files: Array<ApiContents | null>;
  commit: ApiFileCommit;
  verification: ApiVerification;
}

export function renderFilesResponse(links: RepoLinks, commit: CommitObject, files: Array<ApiContents | null>): ApiFilesResponse {
  return { files, commit: renderFileCommit(links, commit), verification: renderVerification(commit) };
}

/** FileResponse, and FileDeleteResponse (whose content is always null). */
export function renderFileResponse(links: RepoLinks, commit: CommitObject, content: ApiContents | null): ApiFileResponse {
  return { content, commit: renderFileCommit(links, commit), verification: renderVerification(commit) };
}
