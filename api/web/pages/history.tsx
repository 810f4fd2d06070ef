import { notFound } from '../../../db/errors.js';
import { isValidRefPattern } from '../../../db/git/objects.js';
import { changedPaths, type ChangedPath } from '../../../db/git/pulls.js';
import type { TagInfo } from '../../../db/git/read.js';
import { fileDiff } from '../../../db/git/review-diff.js';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import { listReleases, getReleaseByTag } from '../../../db/models/releases/releases.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { ApiBranch } from '../../render/branch.js';
import { renderTag, type ApiCommit, type ApiTag } from '../../render/git.js';
import type { ApiRelease } from '../../render/release.js';
import { listBranchesRendered } from '../../routes/code/branches.js';
import { openGitView, renderCommits } from '../../routes/code/git-data.js';
import { renderOne, renderReleases, seesDrafts } from '../../routes/releases/releases.js';
import { page, type PageContext } from '../page.js';
import { loadWebRepo } from '../web-repo.js';
import { Pager } from './layout.js';
import { listPageSize, pageNumber } from './repo-list.js';
import { useHref } from './site.js';
import { resolveSourcePath } from './source.js';

/** A commit's diff is shown for this many files at most; the rest are listed with their counts only. */
const diffFileLimit = 50;
/** One file's diff larger than this is left out of the page. */
const diffSizeLimit = 256 * 1024;

const emptyTrees: Record<string, string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

function RepoTitle({ loaded, what }: { loaded: LoadedRepo; what: string }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return <h1><a href={href(owner)}>{owner}</a> / <a href={href(owner, name)}>{name}</a> <span class="muted">{what}</span></h1>;
}

const firstLine = (message: string): string => message.split('\n')[0];

function CommitList({ loaded, commits }: { loaded: LoadedRepo; commits: ApiCommit[] }) {
  const href = useHref();
  if (commits.length === 0) return <p class="muted">No commits.</p>;
  return (
    <ul class="list commits">
      {commits.map((commit) => (
        <li key={commit.sha}>
          <a class="mono" href={href(loaded.owner.name, loaded.repo.name, 'commit', commit.sha)}>{commit.sha.slice(0, 10)}</a>{' '}
          {firstLine(commit.commit.message)}{' '}
          <span class="muted">{commit.commit.author.name} <time datetime={commit.commit.author.date}>{commit.commit.author.date.slice(0, 10)}</time></span>
        </li>
      ))}
    </ul>
  );
}

/** `/commits/branch/{branch}[/{path}]`: the history of a branch (or of a path on it), 20 a page. */
async function commitsPage({ deps, caller, params, query }: PageContext) {
  const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
  const view = openGitView(deps, loaded);
  if (!(await view.reader.hasBranches())) throw notFound();
  const at = await resolveSourcePath(view.reader, 'branch', params.path ?? '');
  if (!at) throw notFound();
  const at_page = pageNumber(query.page);
  const range = { rev: at.contents.commit.oid, path: at.treePath || undefined };
  const [total, ids] = await Promise.all([
    view.reader.count(range), view.reader.log({ ...range, skip: (at_page - 1) * listPageSize, max: listPageSize }),
  ]);
  if (at.treePath && total === 0) throw notFound();
  const commits = await renderCommits(deps, view, caller.user, await view.reader.objects.readCommits(ids), { stat: false, files: false, verification: false });
  const what = `Commits on ${at.ref}${at.treePath ? ` · ${at.treePath}` : ''}`;
  return {
    title: `${what} · ${loaded.owner.name}/${loaded.repo.name}`,
    body: (
      <>
        <RepoTitle loaded={loaded} what={what} />
        <p class="muted">{total} {total === 1 ? 'commit' : 'commits'}</p>
        <CommitList loaded={loaded} commits={commits} />
        <Pager page={at_page} pages={Math.ceil(total / listPageSize)} query={{}} />
      </>
    ),
  };
}

interface FileDiff {
  file: ChangedPath;
  diff: string | null;
}

function DiffLines({ text }: { text: string }) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('@@'));
  const body = start === -1 ? [] : lines.slice(start);
  return (
    <pre class="diff">
      {body.map((line, i) => (
        <span key={i} class={line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'muted' : undefined}>{line}{'\n'}</span>
      ))}
    </pre>
  );
}

function CommitPage({ loaded, commit, files }: { loaded: LoadedRepo; commit: ApiCommit; files: FileDiff[] }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  const [title, ...rest] = commit.commit.message.split('\n');
  const additions = files.reduce((sum, f) => sum + f.file.additions, 0);
  const deletions = files.reduce((sum, f) => sum + f.file.deletions, 0);
  return (
    <>
      <RepoTitle loaded={loaded} what="Commit" />
      <h2>{title}</h2>
      {rest.join('\n').trim() ? <pre class="commit-message">{rest.join('\n').trim()}</pre> : null}
      <p>
        <span>{commit.commit.author.name}</span>{' '}
        <time class="muted" datetime={commit.commit.author.date}>{commit.commit.author.date.slice(0, 10)}</time>{' '}
        <span class="mono">{commit.sha}</span>{' '}
        <a href={href(owner, name, 'src', 'commit', commit.sha)}>Browse files</a>
      </p>
      <p>
        {commit.parents.length === 0 ? 'No parents' : 'Parents '}
        {commit.parents.map((parent) => <a key={parent.sha} class="mono" href={href(owner, name, 'commit', parent.sha)}>{parent.sha.slice(0, 10)} </a>)}
      </p>
      <p>{files.length} changed {files.length === 1 ? 'file' : 'files'} with <span class="add">{additions} additions</span> and <span class="del">{deletions} deletions</span></p>
      {files.map(({ file, diff }) => (
        <section class="file-diff" key={file.filename}>
          <h3 class="mono">
            {file.previousFilename && file.previousFilename !== file.filename ? `${file.previousFilename} → ` : ''}{file.filename}{' '}
            <span class="add">+{file.additions}</span> <span class="del">-{file.deletions}</span>{' '}
            <span class="muted">{file.status}</span>
          </h3>
          {file.binary ? <p class="muted">Binary file</p> : diff === null ? <p class="muted">Diff not shown.</p> : <DiffLines text={diff} />}
        </section>
      ))}
    </>
  );
}

/** `/commit/{sha}`: the message, author, parents and the diff split by file with each file's additions and deletions. */
async function commitPage({ deps, caller, params }: PageContext) {
  const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
  const view = openGitView(deps, loaded);
  const sha = params.sha;
  const found = /^[0-9a-f]{4,64}$/i.test(sha) ? await view.reader.findCommit(sha) : null;
  if (!found) throw notFound();
  const [commit] = await renderCommits(deps, view, caller.user, [found], { stat: false, files: false, verification: false });
  const from = found.parents[0] ?? emptyTrees[view.reader.format] ?? emptyTrees.sha1;
  const changed = await changedPaths(view.reader, from, found.oid);
  const files: FileDiff[] = [];
  // one `git diff` per file, a few at a time
  for (let start = 0; start < changed.length; start += 8) {
    files.push(...await Promise.all(changed.slice(start, start + 8).map(async (file, i): Promise<FileDiff> => {
      if (file.binary || start + i >= diffFileLimit) return { file, diff: null };
      const text = await fileDiff(view.reader, from, found.oid, file.filename);
      return { file, diff: text.length > diffSizeLimit ? null : text };
    })));
  }
  return { title: `${firstLine(commit.commit.message)} · ${commit.sha.slice(0, 10)}`, body: <CommitPage loaded={loaded} commit={commit} files={files} /> };
}

function BranchesPage({ loaded, branches, defaultBranch }: { loaded: LoadedRepo; branches: ApiBranch[]; defaultBranch: string }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return (
    <>
      <RepoTitle loaded={loaded} what="Branches" />
      {branches.length === 0 ? <p class="muted">No branches.</p> : null}
      <ul class="list">
        {branches.map((branch) => (
          <li key={branch.name}>
            <a class="mono" href={href(owner, name, 'src', 'branch', ...branch.name.split('/'))}>{branch.name}</a>
            {branch.name === defaultBranch ? <span class="label">default</span> : null}
            {branch.protected ? <span class="label">protected</span> : null}{' '}
            <a class="muted mono" href={href(owner, name, 'commit', branch.commit.id)}>{branch.commit.id.slice(0, 10)}</a>{' '}
            {firstLine(branch.commit.message)}{' '}
            <a class="muted" href={href(owner, name, 'commits', 'branch', ...branch.name.split('/'))}>history</a>
          </li>
        ))}
      </ul>
    </>
  );
}

function TagsPage({ loaded, tags }: { loaded: LoadedRepo; tags: ApiTag[] }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return (
    <>
      <RepoTitle loaded={loaded} what="Tags" />
      {tags.length === 0 ? <p class="muted">No tags.</p> : null}
      <ul class="list">
        {tags.map((tag) => (
          <li key={tag.name}>
            <a class="mono" href={href(owner, name, 'src', 'tag', ...tag.name.split('/'))}>{tag.name}</a>{' '}
            <a class="muted mono" href={href(owner, name, 'commit', tag.commit.sha)}>{tag.commit.sha.slice(0, 10)}</a>{' '}
            <a href={tag.zipball_url}>zip</a> <a href={tag.tarball_url}>tar.gz</a>
          </li>
        ))}
      </ul>
    </>
  );
}

interface ShownRelease {
  release: ApiRelease;
  html: string;
}

function ReleaseBox({ loaded, shown }: { loaded: LoadedRepo; shown: ShownRelease }) {
  const href = useHref();
  const { release } = shown;
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return (
    <article class="release" id={`release-${release.id}`}>
      <h2>
        <a href={href(owner, name, 'releases', 'tag', ...release.tag_name.split('/'))}>{release.name || release.tag_name}</a>
        {release.draft ? <span class="label">Draft</span> : null}
        {release.prerelease ? <span class="label">Pre-release</span> : null}
      </h2>
      <p class="muted">
        <span class="mono">{release.tag_name}</span> · {release.author.login} · <time datetime={release.created_at}>{release.created_at.slice(0, 10)}</time>
      </p>
      <div class="markdown" dangerouslySetInnerHTML={{ __html: shown.html }} />
      <ul class="assets">
        {release.assets.map((asset) => <li key={asset.id}><a href={asset.browser_download_url}>{asset.name}</a> <span class="muted">{asset.size} B</span></li>)}
        {release.draft ? null : (
          <>
            <li><a href={release.zipball_url}>Source code (zip)</a></li>
            <li><a href={release.tarball_url}>Source code (tar.gz)</a></li>
          </>
        )}
      </ul>
    </article>
  );
}

async function showReleases(ctx: PageContext, loaded: LoadedRepo, releases: ApiRelease[]): Promise<ShownRelease[]> {
  const context = `${loaded.owner.name}/${loaded.repo.name}`;
  return Promise.all(releases.map(async (release) => ({
    release, html: await renderMarkup(ctx.deps.db, { text: release.body, mode: 'gfm', context }, ctx.deps.config.rootUrl, ctx.caller.user),
  })));
}

export const historyPages = [
  page({ path: '/{owner}/{repo}/commits/branch/{path}', rest: 'path', handle: commitsPage }),
  page({ path: '/{owner}/{repo}/commit/{sha}', handle: commitPage }),
  page({
    path: '/{owner}/{repo}/branches',
    handle: async ({ deps, caller, params, query }) => {
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
      const at = pageNumber(query.page);
      const { branches, total } = await listBranchesRendered(deps, loaded, caller.user, { page: at, limit: listPageSize, offset: (at - 1) * listPageSize });
      return {
        title: `Branches · ${loaded.owner.name}/${loaded.repo.name}`,
        body: (
          <>
            <BranchesPage loaded={loaded} branches={branches} defaultBranch={loaded.repo.default_branch} />
            <Pager page={at} pages={Math.ceil(total / listPageSize)} query={{}} />
          </>
        ),
      };
    },
  }),
  page({
    path: '/{owner}/{repo}/tags',
    handle: async ({ deps, caller, params, query }) => {
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
      const view = openGitView(deps, loaded);
      const at = pageNumber(query.page);
      const names = await view.reader.listTagNames();
      const infos = await Promise.all(names.slice((at - 1) * listPageSize, at * listPageSize).map((name) => view.reader.tagInfo(name)));
      const tags = infos.filter((info): info is TagInfo => info !== null).map((info) => renderTag(view.links, info));
      return {
        title: `Tags · ${loaded.owner.name}/${loaded.repo.name}`,
        body: (
          <>
            <TagsPage loaded={loaded} tags={tags} />
            <Pager page={at} pages={Math.ceil(names.length / listPageSize)} query={{}} />
          </>
        ),
      };
    },
  }),
  page({
    path: '/{owner}/{repo}/releases',
    handle: async (ctx) => {
      const { deps, caller, params, query } = ctx;
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.releases');
      const at = pageNumber(query.page);
      const { rows, total } = await listReleases(deps.db, loaded.repo.id, { includeDrafts: seesDrafts(loaded) }, { limit: listPageSize, offset: (at - 1) * listPageSize });
      const shown = await showReleases(ctx, loaded, await renderReleases(deps, loaded, rows));
      return {
        title: `Releases · ${loaded.owner.name}/${loaded.repo.name}`,
        body: (
          <>
            <RepoTitle loaded={loaded} what="Releases" />
            {shown.length === 0 ? <p class="muted">No releases.</p> : null}
            {shown.map((one) => <ReleaseBox key={one.release.id} loaded={loaded} shown={one} />)}
            <Pager page={at} pages={Math.ceil(total / listPageSize)} query={{}} />
          </>
        ),
      };
    },
  }),
  page({
    path: '/{owner}/{repo}/releases/tag/{tag}',
    rest: 'tag',
    handle: async (ctx) => {
      const { deps, caller, params } = ctx;
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.releases');
      if (!isValidRefPattern(params.tag)) throw notFound();
      const release = await renderOne(deps, loaded, await getReleaseByTag(deps.db, loaded.repo.id, params.tag, seesDrafts(loaded)));
      const [shown] = await showReleases(ctx, loaded, [release]);
      return {
        title: `${release.name || release.tag_name} · ${loaded.owner.name}/${loaded.repo.name}`,
        body: <><RepoTitle loaded={loaded} what="Release" /><ReleaseBox loaded={loaded} shown={shown} /></>,
      };
    },
  }),
];
