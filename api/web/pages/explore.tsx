import { searchRepositories } from '../../../db/models/repos/repo-search.js';
import { renderRepos } from '../../context/repo.js';
import { page, type PageContext } from '../page.js';
import { Pager } from './layout.js';
import { listPageSize, pageNumber, RepoList } from './repo-list.js';
import { useHref } from './site.js';

/** `/` and `/explore/repos`: the repositories the visitor may see, searched by name, newest changes first. */
async function explore({ deps, caller, query }: PageContext) {
  const keyword = (query.q ?? '').trim();
  const at = pageNumber(query.page);
  const viewer = caller.user;
  const { repos, total } = await searchRepositories(deps.db, viewer, {
    keyword: keyword || undefined, includeDescription: true, includePrivate: viewer !== null,
    sort: 'updated', order: 'desc', limit: listPageSize, offset: (at - 1) * listPageSize,
  });
  const rendered = await renderRepos(deps, repos, viewer);
  return {
    title: keyword ? `Repositories matching ${keyword}` : 'Explore',
    body: <ExploreRepos keyword={keyword} repos={rendered} page={at} pages={Math.ceil(total / listPageSize)} total={total} />,
  };
}

function ExploreRepos({ keyword, repos, page: at, pages, total }: { keyword: string; repos: Parameters<typeof RepoList>[0]['repos']; page: number; pages: number; total: number }) {
  const href = useHref();
  return (
    <>
      <h1>Explore repositories</h1>
      <form class="search" method="get" action={href('explore', 'repos')} role="search">
        <input type="search" name="q" value={keyword} placeholder="Search repositories" aria-label="Search repositories" />
        <button type="submit">Search</button>
      </form>
      <p class="muted">{total} {total === 1 ? 'repository' : 'repositories'}</p>
      <RepoList repos={repos} empty={keyword ? 'No repository matches.' : 'No repositories yet.'} />
      <Pager page={at} pages={pages} query={keyword ? { q: keyword } : {}} />
    </>
  );
}

export const explorePages = [
  page({ path: '/', handle: explore }),
  page({ path: '/explore/repos', handle: explore }),
];
