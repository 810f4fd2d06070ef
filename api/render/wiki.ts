import type { CommitObject } from '../../db/git/objects.js';
import { webPathToTitle } from '../../db/models/wiki/wiki-paths.js';
import type { WikiPageMeta, WikiPageRead } from '../../db/models/wiki/wiki.js';
import { renderCommitUser, type ApiCommitUser } from './git.js';

export interface ApiWikiCommit {
  sha: string;
  author: ApiCommitUser;
  /** Gitea's spelling. */
  commiter: ApiCommitUser;
  message: string;
}

export interface ApiWikiPageMetaData {
  title: string;
  html_url: string;
  sub_url: string;
  last_commit: ApiWikiCommit;
}

export interface ApiWikiPage extends ApiWikiPageMetaData {
  content_base64: string;
  commit_count: number;
  sidebar: string;
  footer: string;
}

/** Gitea's ToWikiCommit: both signatures with their moments in UTC. */
export function renderWikiCommit(commit: CommitObject): ApiWikiCommit {
  return { sha: commit.oid, author: renderCommitUser(commit.author, true), commiter: renderCommitUser(commit.committer, true), message: commit.message };
}

/** Gitea's ToWikiPageMetaData; `repoHtml` is the repository's web address. */
export function renderWikiPageMeta(page: WikiPageMeta, repoHtml: string): ApiWikiPageMetaData {
  return { title: webPathToTitle(page.webPath), html_url: `${repoHtml}/wiki/${page.webPath}`, sub_url: page.webPath, last_commit: renderWikiCommit(page.lastCommit) };
}

export function renderWikiPage(page: WikiPageRead, repoHtml: string): ApiWikiPage {
  return {
    ...renderWikiPageMeta(page, repoHtml),
    content_base64: page.content.toString('base64'),
    commit_count: page.commitCount,
    sidebar: page.sidebar?.toString('base64') ?? '',
    footer: page.footer?.toString('base64') ?? '',
  };
}

export function renderWikiCommitList(commits: CommitObject[], count: number): { commits: ApiWikiCommit[]; count: number } {
  return { commits: commits.map(renderWikiCommit), count };
}
