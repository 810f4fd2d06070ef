import type { ApiRepository } from '../../render/repository.js';
import { useHref } from './site.js';

/** A list of repositories as the API renders them (the same view and counts). */
export function RepoList({ repos, empty }: { repos: ApiRepository[]; empty: string }) {
  const href = useHref();
  if (repos.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="list repos">
      {repos.map((repo) => (
        <li key={repo.id}>
          <a class="repo-name" href={href(repo.owner.login, repo.name)}>{repo.full_name}</a>
          {repo.private ? <span class="label">Private</span> : null}
          {repo.fork ? <span class="label">Fork</span> : null}
          {repo.archived ? <span class="label">Archived</span> : null}
          {repo.description ? <p class="muted">{repo.description}</p> : null}
          <div class="counts"><span>★ {repo.stars_count}</span><span>Forks {repo.forks_count}</span></div>
        </li>
      ))}
    </ul>
  );
}

/** Gitea's `page` query parameter: a positive integer, 1 when absent or malformed. */
export function pageNumber(value: string | undefined): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}

export const listPageSize = 20;
