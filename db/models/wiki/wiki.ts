import type { Tx } from '../../data-source.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { CommitObject } from '../../git/objects.js';
import { pathCommitCount, pathHistory } from '../../git/path-history.js';
import type { PathEntry } from '../../git/read.js';
import type { GitRepo } from '../../git/repo.js';
import { wikiBranch, wikiName, type GitStore } from '../../git/store.js';
import { assertNotArchived } from '../code/branch-protection.js';
import { identityOf } from '../code/contents.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';
import { gitPathToWebPath, queryUnescape, reservedSegment, titleToWebPath, webPathToGitPath, type WebPath } from './wiki-paths.js';

export interface WikiContext {
  git: GitStore;
  config: { rootUrl: string };
}

const branchRef = `refs/heads/${wikiBranch}`;
/** Gitea's API.DefaultMaxBlobSize: larger pages are answered without their content. */
const maxContentSize = 10 * 1024 * 1024;
/** Gitea's [git] COMMITS_RANGE_SIZE: revisions per page. */
export const revisionsPerPage = 50;

/** The wiki's newest commit, or null when there is no wiki yet (or nothing on its branch). */
async function wikiHead(ctx: WikiContext, repo: RepoRow): Promise<{ wiki: GitRepo; head: CommitObject } | null> {
  if (!ctx.git.wikiExists(repo)) return null;
  const wiki = ctx.git.openWiki(repo);
  const oid = await wiki.branchHead(wikiBranch);
  const head = oid ? await wiki.objects.readCommit(oid) : null;
  return head ? { wiki, head } : null;
}

async function requireWikiHead(ctx: WikiContext, repo: RepoRow): Promise<{ wiki: GitRepo; head: CommitObject }> {
  const found = await wikiHead(ctx, repo);
  if (!found) throw notFound('wiki does not exist');
  return found;
}

/** Gitea's findEntryForFile: the file as escaped, else its unescaped spelling (older wikis). */
async function pageEntry(wiki: GitRepo, head: CommitObject, gitPath: string): Promise<PathEntry | null> {
  const isFile = (entry: PathEntry | null): entry is PathEntry => entry !== null && entry.type === 'blob';
  const direct = await wiki.entryAt(head, gitPath);
  if (isFile(direct)) return direct;
  const unescaped = queryUnescape(gitPath);
  if (unescaped === null || unescaped === gitPath) return null;
  const other = await wiki.entryAt(head, unescaped);
  return isFile(other) ? other : null;
}

async function contentOf(wiki: GitRepo, entry: PathEntry | null): Promise<Buffer | null> {
  if (!entry) return null;
  if ((await wiki.sizeOf(entry.oid)) > maxContentSize) return Buffer.alloc(0);
  return (await wiki.readBlob(entry.oid)) ?? Buffer.alloc(0);
}

export interface WikiPageMeta {
  webPath: WebPath;
  lastCommit: CommitObject;
}

export interface WikiPageRead extends WikiPageMeta {
  content: Buffer;
  commitCount: number;
  sidebar: Buffer | null;
  footer: Buffer | null;
}

/** Gitea's getWikiPage: the page with its content, the sidebar and footer, its number of revisions and last commit. */
export async function readWikiPage(ctx: WikiContext, repo: RepoRow, webPath: WebPath): Promise<WikiPageRead> {
  const { wiki, head } = await requireWikiHead(ctx, repo);
  const gitPath = webPathToGitPath(webPath);
  const entry = await pageEntry(wiki, head, gitPath);
  if (!entry) throw notFound(`wiki page ${webPath} does not exist`);
  const [content, sidebar, footer, commitCount, lastId] = await Promise.all([
    contentOf(wiki, entry),
    pageEntry(wiki, head, webPathToGitPath('_Sidebar')).then((e) => contentOf(wiki, e)),
    pageEntry(wiki, head, webPathToGitPath('_Footer')).then((e) => contentOf(wiki, e)),
    pathCommitCount(wiki, head.oid, entry.path),
    wiki.lastCommitFor(head.oid, entry.path),
  ]);
  const lastCommit = (lastId && (await wiki.objects.readCommit(lastId))) || head;
  return { webPath, lastCommit, content: content ?? Buffer.alloc(0), commitCount, sidebar, footer };
}

/**
 * Gitea's ListWikiPages: the entries at the top of the wiki's tree, paged by their position among all entries
 * (files that are not pages take their place in the count and are left out), each with its last commit.
 */
export async function listWikiPages(ctx: WikiContext, repo: RepoRow, page: number, limit: number): Promise<{ pages: WikiPageMeta[]; total: number }> {
  const { wiki, head } = await requireWikiHead(ctx, repo);
  const entries = (await wiki.objects.readTree(head.tree)) ?? [];
  const chosen = entries
    .slice((page - 1) * limit, page * limit)
    .filter((entry) => entry.mode === '100644')
    .map((entry) => ({ entry, webPath: gitPathToWebPath(entry.name) }))
    .filter((item): item is { entry: typeof item.entry; webPath: WebPath } => item.webPath !== null);
  const lasts = await wiki.lastCommitsFor(head.oid, '', chosen.map((item) => item.entry.name));
  const commits = new Map((await wiki.objects.readCommits([...new Set(lasts.values())])).map((c) => [c.oid, c]));
  const pages = chosen.map(({ entry, webPath }) => ({ webPath, lastCommit: commits.get(lasts.get(entry.name) ?? '') ?? head }));
  return { pages, total: entries.length };
}

/** Gitea's ListPageRevisions: the commits that touched the page, newest first, 50 a page, with their total. */
export async function listWikiRevisions(ctx: WikiContext, repo: RepoRow, webPath: WebPath, page: number): Promise<{ commits: CommitObject[]; count: number }> {
  const { wiki, head } = await requireWikiHead(ctx, repo);
  const entry = await pageEntry(wiki, head, webPathToGitPath(webPath));
  if (!entry) throw notFound(`wiki page ${webPath} does not exist`);
  const [count, ids] = await Promise.all([
    pathCommitCount(wiki, head.oid, entry.path),
    pathHistory(wiki, head.oid, entry.path, (page - 1) * revisionsPerPage, revisionsPerPage),
  ]);
  return { commits: await wiki.objects.readCommits(ids), count };
}

// ---------------------------------------------------------------- writing

/** Go's %q for the texts of default commit messages. */
const quoted = (text: string): string => JSON.stringify(text);

/** Gitea's prepareGitPath: the page's file as it exists (the unescaped spelling first), else its escaped file name. */
function placePage(files: Map<string, PathEntry>, webPath: WebPath): { exists: boolean; gitPath: string } {
  const unescaped = `${webPath}.md`;
  if (files.get(unescaped)?.type === 'blob') return { exists: true, gitPath: unescaped };
  const gitPath = webPathToGitPath(webPath);
  return { exists: files.get(gitPath)?.type === 'blob', gitPath };
}

interface WikiChange {
  /** The index edits of the change, decided against the wiki's files; throws to refuse it. */
  edits(files: Map<string, PathEntry>, wiki: GitRepo): Promise<Array<{ path: string; mode: string; oid: string | null }>>;
  message: string;
  /** Whether the change may create the wiki (a deletion may not). */
  creates: boolean;
}

/**
 * One commit on the wiki's branch, built on a temporary index (no work tree), authored and committed by the doer
 * as Gitea does; the branch moves with a compare-and-swap. Wiki writes to one repository take turns. If `tx` rolls
 * back, the branch moves back, and a wiki this change created is removed.
 */
async function commitWikiChange(tx: Tx, ctx: WikiContext, repo: RepoRow, doer: UserRow, change: WikiChange): Promise<void> {
  assertNotArchived(repo);
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('hearth:wiki:' || $1::text, 0))", [repo.id]);
  if (!ctx.git.wikiExists(repo)) {
    if (!change.creates) throw notFound('wiki does not exist');
    await ctx.git.initWiki(repo);
    tx.onRollback(() => ctx.git.remove(repo.owner_name, wikiName(repo.name)));
  }
  const wiki = ctx.git.openWiki(repo);
  const parentId = await wiki.branchHead(wikiBranch);
  const parent = parentId ? await wiki.objects.readCommit(parentId) : null;
  if (!parent && !change.creates) throw notFound('wiki does not exist');
  const files = new Map<string, PathEntry>();
  if (parent) for (const entry of await wiki.listTree(parent.oid, { recursive: true })) files.set(entry.path, entry);
  const edits = await change.edits(files, wiki);
  const identity = { ...identityOf(doer, ctx.config.rootUrl), date: new Date() };
  const index = await wiki.openIndex(parent?.tree ?? null);
  let commitId: string;
  try {
    await index.apply(edits, wiki.format);
    const tree = await index.writeTree();
    commitId = await wiki.commitTree(tree, parent ? [parent.oid] : [], `${change.message}\n`, identity, identity);
  } finally {
    await index.dispose();
  }
  if (!(await wiki.updateRef(branchRef, commitId, parent?.oid ?? null))) {
    throw conflict('the wiki was changed by someone else meanwhile; try again');
  }
  tx.onRollback(async () => {
    if (parent) await wiki.updateRef(branchRef, parent.oid, commitId);
    else await wiki.deleteRef(branchRef, commitId);
  });
}

/** Whether git takes the page's file (no `.git` component, no empty one): other names name no page that could exist. */
function isUsableFileName(webPath: WebPath): boolean {
  return !webPathToGitPath(webPath).split('/').some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git');
}

/** A new page's name: not one Gitea reserves, and a usable file name. */
function assertUsableName(webPath: WebPath): void {
  const reserved = reservedSegment(webPath);
  if (reserved !== null) throw badRequest(`wiki title is reserved: ${reserved}`);
  if (!isUsableFileName(webPath)) throw badRequest(`wiki page name is not a usable file name: ${webPath}`);
}

/** Gitea's AddWikiPage: a new page (the first one creates the wiki); a page of that name already there is a 400. */
export async function addWikiPage(tx: Tx, ctx: WikiContext, repo: RepoRow, doer: UserRow, title: string, content: Buffer, message: string): Promise<WebPath> {
  if (!title.trim()) throw badRequest('emptyTitle');
  const webPath = titleToWebPath(title);
  assertUsableName(webPath);
  const comment = message || `Add ${quoted(title)}`;
  await commitWikiChange(tx, ctx, repo, doer, {
    creates: true,
    message: comment,
    async edits(files, wiki) {
      const placed = placePage(files, webPath);
      if (placed.exists) throw badRequest(`wiki page already exists [title: ${placed.gitPath}]`);
      return [{ path: placed.gitPath, mode: '100644', oid: await wiki.hashObject(content) }];
    },
  });
  await emit(tx, { kind: 'wiki.created', repoId: repo.id, doerId: doer.id, payload: { page: webPath, comment } });
  return webPath;
}

/**
 * Gitea's EditWikiPage: new content, and with a title a new name (the file moves). As in Gitea, an edit of a page
 * that does not exist writes it. An empty title keeps the page's name.
 */
export async function editWikiPage(
  tx: Tx, ctx: WikiContext, repo: RepoRow, doer: UserRow, oldPath: WebPath, title: string, content: Buffer, message: string,
): Promise<WebPath> {
  if (!isUsableFileName(oldPath)) throw notFound(`wiki page ${oldPath} does not exist`);
  const newPath = title.trim() ? titleToWebPath(title) : oldPath;
  assertUsableName(newPath);
  const comment = message || `Update ${quoted(newPath)}`;
  await commitWikiChange(tx, ctx, repo, doer, {
    creates: true,
    message: comment,
    async edits(files, wiki) {
      const placed = placePage(files, newPath);
      const old = oldPath === newPath ? placed : placePage(files, oldPath);
      const blob = await wiki.hashObject(content);
      const edits = old.exists && old.gitPath !== placed.gitPath ? [{ path: old.gitPath, mode: '100644', oid: null }] : [];
      return [...edits, { path: placed.gitPath, mode: '100644', oid: blob }];
    },
  });
  await emit(tx, { kind: 'wiki.edited', repoId: repo.id, doerId: doer.id, payload: { page: newPath, comment } });
  return newPath;
}

/** Gitea's DeleteWikiPage: the page's file goes in a commit of its own; a page that does not exist is a 404. */
export async function deleteWikiPage(tx: Tx, ctx: WikiContext, repo: RepoRow, doer: UserRow, webPath: WebPath): Promise<void> {
  if (!isUsableFileName(webPath)) throw notFound(`wiki page ${webPath} does not exist`);
  await commitWikiChange(tx, ctx, repo, doer, {
    creates: false,
    message: `Delete page ${quoted(webPath)}`,
    async edits(files) {
      const placed = placePage(files, webPath);
      if (!placed.exists) throw notFound(`wiki page ${webPath} does not exist`);
      return [{ path: placed.gitPath, mode: '100644', oid: null }];
    },
  });
  await emit(tx, { kind: 'wiki.deleted', repoId: repo.id, doerId: doer.id, payload: { page: webPath, comment: '' } });
}
