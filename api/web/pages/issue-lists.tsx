import { listIssues } from '../../../db/models/issues/issue-list.js';
import { listMilestones } from '../../../db/models/issues/milestones.js';
import { listLabels } from '../../../db/models/orgs/labels.js';
import type { LoadedRepo } from '../../context/repo.js';
import { renderIssueLabel, renderMilestone, type ApiIssue, type ApiMilestone } from '../../render/issue.js';
import type { ApiLabel } from '../../render/label.js';
import { issueFilterOf } from '../../routes/issues/issue-queries.js';
import { renderIssuePage } from '../../routes/issues/render.js';
import { page, type PageContext } from '../page.js';
import { loadWebRepo } from '../web-repo.js';
import { Pager } from './layout.js';
import { listPageSize, pageNumber } from './repo-list.js';
import { useHref } from './site.js';

type State = 'open' | 'closed' | 'all';
const stateOf = (value: string | undefined): State => (value === 'closed' || value === 'all' ? value : 'open');

function RepoTitle({ loaded, what }: { loaded: LoadedRepo; what: string }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return <h1><a href={href(owner)}>{owner}</a> / <a href={href(owner, name)}>{name}</a> <span class="muted">{what}</span></h1>;
}

interface ListQuery {
  state: State;
  q: string;
  labels: string;
}

function IssueList({ loaded, pulls, issues, query, total, page: at }: { loaded: LoadedRepo; pulls: boolean; issues: ApiIssue[]; query: ListQuery; total: number; page: number }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  const kind = pulls ? 'pulls' : 'issues';
  const kept = (state: State): Record<string, string> =>
    Object.fromEntries(Object.entries({ state, q: query.q, labels: query.labels }).filter(([, value]) => value !== ''));
  const link = (state: State): string => `${href(owner, name, kind)}?${new URLSearchParams(kept(state)).toString()}`;
  return (
    <>
      <RepoTitle loaded={loaded} what={pulls ? 'Pull requests' : 'Issues'} />
      <form class="search" method="get" action={href(owner, name, kind)} role="search">
        <input type="hidden" name="state" value={query.state} />
        {query.labels ? <input type="hidden" name="labels" value={query.labels} /> : null}
        <input type="search" name="q" value={query.q} placeholder="Search" aria-label="Search" />
        <button type="submit">Search</button>
      </form>
      <p class="tabs">
        {(['open', 'closed', 'all'] as const).map((state) => (
          <a key={state} href={link(state)} aria-current={state === query.state ? 'page' : undefined}>{state[0].toUpperCase() + state.slice(1)}</a>
        ))}
        <span class="muted"> {total} {pulls ? (total === 1 ? 'pull request' : 'pull requests') : (total === 1 ? 'issue' : 'issues')}</span>
      </p>
      {issues.length === 0 ? <p class="muted">Nothing here.</p> : null}
      <ul class="list issues">
        {issues.map((issue) => (
          <li key={issue.id}>
            <span class={`state-${issue.state}`}>{issue.pull_request?.merged ? 'Merged' : issue.state === 'open' ? 'Open' : 'Closed'}</span>{' '}
            <a href={href(owner, name, kind, issue.number)}>{issue.title}</a>{' '}
            {issue.labels.map((label) => (
              <a class="label" key={label.id} href={`${href(owner, name, kind)}?${new URLSearchParams({ ...kept(query.state), labels: label.name }).toString()}`}>{label.name}</a>
            ))}
            <span class="muted"> #{issue.number} by {issue.user.login}{issue.milestone ? ` · ${issue.milestone.title}` : ''}{issue.comments ? ` · ${issue.comments} comments` : ''}</span>
          </li>
        ))}
      </ul>
      <Pager page={at} pages={Math.ceil(total / listPageSize)} query={kept(query.state)} />
    </>
  );
}

/** `/issues` and `/pulls` of a repository: the API's issue list query and kept texts, filtered by state, labels and `q`, 20 a page. */
async function issueListPage({ deps, caller, params, query }: PageContext, pulls: boolean) {
  const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, pulls ? 'repo.pulls' : 'repo.issues');
  const asked: ListQuery = { state: stateOf(query.state), q: (query.q ?? '').trim(), labels: (query.labels ?? '').trim() };
  const at = pageNumber(query.page);
  const filter = await issueFilterOf(deps, loaded, {
    state: asked.state, q: asked.q || undefined, labels: asked.labels || undefined, type: pulls ? 'pulls' : 'issues',
  });
  const { rows, total } = await listIssues(deps.db, loaded.repo, filter, { limit: listPageSize, offset: (at - 1) * listPageSize });
  const issues = JSON.parse((await renderIssuePage(deps, rows, loaded.repo)).text) as ApiIssue[];
  return {
    title: `${pulls ? 'Pull requests' : 'Issues'} · ${loaded.owner.name}/${loaded.repo.name}`,
    body: <IssueList loaded={loaded} pulls={pulls} issues={issues} query={asked} total={total} page={at} />,
  };
}

function MilestoneList({ loaded, milestones, state }: { loaded: LoadedRepo; milestones: ApiMilestone[]; state: State }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return (
    <>
      <RepoTitle loaded={loaded} what="Milestones" />
      <p class="tabs">
        {(['open', 'closed', 'all'] as const).map((s) => (
          <a key={s} href={`${href(owner, name, 'milestones')}?state=${s}`} aria-current={s === state ? 'page' : undefined}>{s[0].toUpperCase() + s.slice(1)}</a>
        ))}
      </p>
      {milestones.length === 0 ? <p class="muted">No milestones.</p> : null}
      <ul class="list">
        {milestones.map((milestone) => (
          <li key={milestone.id}>
            <strong>{milestone.title}</strong> <span class={`state-${milestone.state}`}>{milestone.state}</span>
            <span class="muted"> {milestone.open_issues} open · {milestone.closed_issues} closed{milestone.due_on ? ` · due ${milestone.due_on.slice(0, 10)}` : ''}</span>
            {milestone.description ? <p class="muted">{milestone.description}</p> : null}
          </li>
        ))}
      </ul>
    </>
  );
}

function LabelList({ loaded, labels }: { loaded: LoadedRepo; labels: ApiLabel[] }) {
  const href = useHref();
  const [owner, name] = [loaded.owner.name, loaded.repo.name];
  return (
    <>
      <RepoTitle loaded={loaded} what="Labels" />
      {labels.length === 0 ? <p class="muted">No labels.</p> : null}
      <ul class="list">
        {labels.map((label) => (
          <li key={label.id}>
            <a class="label" href={`${href(owner, name, 'issues')}?${new URLSearchParams({ labels: label.name }).toString()}`}>{label.name}</a>
            <span class="muted mono"> #{label.color}</span>
            {label.description ? <span class="muted"> {label.description}</span> : null}
          </li>
        ))}
      </ul>
    </>
  );
}

export const issueListPages = [
  page({ path: '/{owner}/{repo}/issues', handle: (ctx) => issueListPage(ctx, false) }),
  page({ path: '/{owner}/{repo}/pulls', handle: (ctx) => issueListPage(ctx, true) }),
  page({
    path: '/{owner}/{repo}/milestones',
    handle: async ({ deps, caller, params, query }) => {
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.issues');
      const state = stateOf(query.state);
      const at = pageNumber(query.page);
      const { rows, total } = await listMilestones(deps.db, loaded.repo.id, { state }, { limit: listPageSize, offset: (at - 1) * listPageSize });
      return {
        title: `Milestones · ${loaded.owner.name}/${loaded.repo.name}`,
        body: <><MilestoneList loaded={loaded} milestones={rows.map(renderMilestone)} state={state} /><Pager page={at} pages={Math.ceil(total / listPageSize)} query={{ state }} /></>,
      };
    },
  }),
  page({
    path: '/{owner}/{repo}/labels',
    handle: async ({ deps, caller, params, query }) => {
      const loaded = await loadWebRepo(deps, caller, params.owner, params.repo, 'repo.issues');
      const at = pageNumber(query.page);
      const { labels, total } = await listLabels(deps.db, { repoId: loaded.repo.id }, { limit: listPageSize, offset: (at - 1) * listPageSize });
      const rendered = labels.map((label) => renderIssueLabel(label, loaded.repo, deps.config));
      return {
        title: `Labels · ${loaded.owner.name}/${loaded.repo.name}`,
        body: <><LabelList loaded={loaded} labels={rendered} /><Pager page={at} pages={Math.ceil(total / listPageSize)} query={{}} /></>,
      };
    },
  }),
];
