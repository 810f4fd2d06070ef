import type { ContentsItem } from '../../../db/models/code/contents.js';
import { readContentsOrList, resolveContentsRef } from '../../../db/models/code/contents.js';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import { listRepoTopics } from '../../../db/models/repos/topics.js';
import type { LoadedRepo } from '../../context/repo.js';
import type { Deps } from '../../deps.js';
import { renderRepository, type ApiRepository } from '../../render/repository.js';
import { loadWebRepo } from '../web-repo.js';
import { page } from '../page.js';
import { useHref } from './site.js';
import { Listing } from './source.js';

/** The README Gitea shows on a repository's home: README.md first, then the other spellings. */
const readmeNames = ['readme.md', 'readme.markdown', 'readme', 'readme.txt'];
/** A README larger than this is left out of the home page. */
const readmeLimit = 1024 * 1024;

interface Tree {
  /** The branch the root was read from. */
  branch: string;
  entries: ContentsItem[];
  readme: { name: string; html: string | null; text: string | null } | null;
}

/** The root of the default branch, and its README rendered with the project's Markdown renderer and sanitizer. */
async function readRoot(deps: Deps, loaded: LoadedRepo, api: ApiRepository): Promise<Tree | null> {
  const reader = deps.git.open(loaded.repo);
  if (!(await reader.hasBranches())) return null;
  const at = await resolveContentsRef(reader, loaded.repo, '');
  if (!at) return null;
  const listed = await readContentsOrList(reader, at, '');
  const entries = (Array.isArray(listed) ? listed : []).sort((a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || a.name.localeCompare(b.name));
  const found = readmeNames.map((name) => entries.find((entry) => entry.type === 'file' && entry.name.toLowerCase() === name)).find(Boolean);
  if (!found || found.size > readmeLimit) return { branch: at.ref, entries, readme: null };
  const text = (await reader.readBlob(found.sha))?.toString('utf8') ?? '';
  const markdown = /\.(md|markdown)$/i.test(found.name);
  const html = markdown
    ? await renderMarkup(deps.db, { text, mode: 'gfm', context: `${api.owner.login}/${api.name}/src/branch/${at.ref}` }, deps.config.rootUrl, loaded.caller.user)
    : null;
  return { branch: at.ref, entries, readme: { name: found.name, html, text: markdown ? null : text } };
}

function CloneUrls({ repo }: { repo: ApiRepository }) {
  return (
    <div class="clone">
      <label class="muted" for="clone-http">HTTP</label>
      <input id="clone-http" type="text" readonly value={repo.clone_url} />
      <button type="button" data-copy={repo.clone_url} hidden>Copy</button>
      {repo.ssh_url ? (
        <>
          <label class="muted" for="clone-ssh">SSH</label>
          <input id="clone-ssh" type="text" readonly value={repo.ssh_url} />
          <button type="button" data-copy={repo.ssh_url} hidden>Copy</button>
        </>
      ) : null}
    </div>
  );
}

/** Gitea's push instructions for an empty repository. */
function EmptyRepo({ repo }: { repo: ApiRepository }) {
  const branch = repo.default_branch || 'main';
  return (
    <section class="empty-repo">
      <h2>This repository is empty</h2>
      <p>Create a new repository on the command line:</p>
      <pre>{`touch README.md
git init
git checkout -b ${branch}
git add README.md
git commit -m "first commit"
git remote add origin ${repo.clone_url}
git push -u origin ${branch}`}</pre>
      <p>Push an existing repository from the command line:</p>
      <pre>{`git remote add origin ${repo.clone_url}
git push -u origin ${branch}`}</pre>
    </section>
  );
}

function RepoHome({ loaded, repo, topics, tree }: { loaded: LoadedRepo; repo: ApiRepository; topics: string[]; tree: Tree | null }) {
  const href = useHref();
  const owner = repo.owner.login;
  return (
    <>
      <h1>
        <a href={href(owner)}>{owner}</a> / <a href={href(owner, repo.name)}>{repo.name}</a>
        {repo.private ? <span class="label">Private</span> : null}
      </h1>
      {repo.description ? <p class="description">{repo.description}</p> : null}
      {topics.length > 0 ? <p class="topics">{topics.map((topic) => <span class="topic" key={topic}>{topic}</span>)}</p> : null}
      <div class="counts">
        <span>Stars {repo.stars_count}</span>
        <span>Forks {repo.forks_count}</span>
        <span>Issues {repo.open_issues_count}</span>
        <span>Pull requests {repo.open_pr_counter}</span>
        <span>Releases {repo.release_counter}</span>
      </div>
      <nav class="repo-nav">
        {tree ? <a href={href(owner, repo.name, 'commits', 'branch', ...tree.branch.split('/'))}>Commits</a> : null}
        <a href={href(owner, repo.name, 'branches')}>Branches</a>
        <a href={href(owner, repo.name, 'tags')}>Tags</a>
        {repo.has_issues ? <a href={href(owner, repo.name, 'issues')}>Issues</a> : null}
        {repo.has_pull_requests ? <a href={href(owner, repo.name, 'pulls')}>Pull requests</a> : null}
        {repo.has_releases ? <a href={href(owner, repo.name, 'releases')}>Releases</a> : null}
      </nav>
      <CloneUrls repo={repo} />
      {tree ? (
        <>
          <Listing loaded={loaded} at={{ kind: 'branch', ref: tree.branch }} entries={tree.entries} />
          {tree.readme ? (
            <section class="readme">
              <h2>{tree.readme.name}</h2>
              {tree.readme.html !== null
                ? <div class="markdown" dangerouslySetInnerHTML={{ __html: tree.readme.html }} />
                : <pre>{tree.readme.text}</pre>}
            </section>
          ) : null}
        </>
      ) : <EmptyRepo repo={repo} />}
    </>
  );
}

/** `/{owner}/{repo}`: the repository's home, from the same view and rendering the API answers with. */
export const repoHomePages = [
  page({
    path: '/{owner}/{repo}',
    handle: async ({ deps, caller, params }) => {
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.code');
      const api = renderRepository(loaded, caller.user, deps.config);
      const [topics, tree] = await Promise.all([listRepoTopics(deps.db, loaded.repo.id, { limit: 50, offset: 0 }), readRoot(deps, loaded, api)]);
      return { title: api.full_name, body: <RepoHome loaded={loaded} repo={api} topics={topics.names} tree={tree} /> };
    },
  }),
];
