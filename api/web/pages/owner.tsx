import { searchRepositories } from '../../../db/models/repos/repo-search.js';
import { userTypes, type UserRow } from '../../../db/models/users/user-row.js';
import { renderRepos } from '../../context/repo.js';
import { loadUser } from '../../context/user.js';
import type { ApiRepository } from '../../render/repository.js';
import { page } from '../page.js';
import { Pager } from './layout.js';
import { listPageSize, pageNumber, RepoList } from './repo-list.js';

function OwnerPage({ owner, repos, page: at, pages }: { owner: UserRow; repos: ApiRepository[]; page: number; pages: number }) {
  const isOrg = owner.type === userTypes.organization;
  return (
    <>
      <section class="profile">
        <h1>{owner.full_name ? <>{owner.full_name} <span class="muted">{owner.name}</span></> : owner.name}</h1>
        {isOrg ? <p class="muted">Organization</p> : null}
        {owner.description ? <p>{owner.description}</p> : null}
        {owner.location ? <p class="muted">{owner.location}</p> : null}
        {owner.website ? <p>{/^https?:\/\//i.test(owner.website) ? <a href={owner.website} rel="nofollow noopener">{owner.website}</a> : owner.website}</p> : null}
      </section>
      <h2>Repositories</h2>
      <RepoList repos={repos} empty="No repositories." />
      <Pager page={at} pages={pages} query={{}} />
    </>
  );
}

/** `/{owner}`: a user's profile or an organization, with the repositories it owns that the visitor may see. */
export const ownerPages = [
  page({
    path: '/{owner}',
    handle: async ({ deps, caller, params, query }) => {
      const owner = await loadUser(deps, caller, params.owner);
      const at = pageNumber(query.page);
      const { repos, total } = await searchRepositories(deps.db, caller.user, {
        ownerId: owner.id, collaborate: false, includePrivate: caller.user !== null, limit: listPageSize, offset: (at - 1) * listPageSize,
      });
      const rendered = await renderRepos(deps, repos, caller.user);
      return { title: owner.name, body: <OwnerPage owner={owner} repos={rendered} page={at} pages={Math.ceil(total / listPageSize)} /> };
    },
  }),
];
