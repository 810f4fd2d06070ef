import type { Tx } from '../../data-source.js';
import { HttpError } from '../../errors.js';
import { accessModeOf, unitModeOf } from '../access.js';
import { accessModes, type RepoRow } from '../repos/repo-row.js';
import { findRepo, findRepoById } from '../repos/repos.js';
import type { UserRow } from '../users/user-row.js';
import { addTimelineComment } from './issue-facts.js';
import { commentType, type IssueRow } from './issue-row.js';
import { setIssueClosed } from './issues.js';
import { findIssueReferences, findMarkdownIssueReferences, type IssueReference, type ReferenceAction } from './references.js';

/** A pushed commit, as the keyword pass reads it. */
export interface PushedCommit {
  sha: string;
  message: string;
}

interface Target {
  repo: RepoRow;
  issue: IssueRow;
}

/** The repository and issue a reference names, or null when either does not exist. */
async function resolveReference(tx: Tx, from: RepoRow, ref: IssueReference): Promise<Target | null> {
  const repo = ref.owner && ref.name ? await findRepo(tx, ref.owner, ref.name) : from;
  if (!repo) return null;
  const [issue] = await tx.query<IssueRow>('SELECT * FROM issue WHERE repo_id = $1 AND index = $2', [repo.id, ref.index]);
  return issue ? { repo, issue } : null;
}

/** The caller's mode in the repository and in the unit of the issue (issues or pull requests). */
async function modesIn(tx: Tx, user: UserRow, target: Target): Promise<{ repoMode: number; unitMode: number }> {
  const repoMode = await accessModeOf(tx, user, target.repo);
  const unitMode = await unitModeOf(tx, user, target.repo, target.issue.is_pull ? 'repo.pulls' : 'repo.issues', repoMode);
  return { repoMode, unitMode };
}

/** Go's html.EscapeString. */
const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');

/** The path of this instance's root (Gitea's AppSubURL), without its trailing slash. */
const subPath = (rootUrl: string): string => new URL(rootUrl).pathname.replace(/\/+$/, '');

/** Whether `commitSha` already closed (or reopened) the issue once: a commit acts on an issue at most once. */
async function actedBefore(tx: Tx, issue: IssueRow, closes: boolean, commitSha: string): Promise<boolean> {
  const [row] = await tx.query('SELECT 1 FROM comment WHERE issue_id = $1 AND type = $2 AND commit_sha = $3 LIMIT 1', [
    issue.id, closes ? commentType.close : commentType.reopen, commitSha,
  ]);
  return Boolean(row);
}

/**
 * Closes or reopens as the API does (events, webhooks with the commit as `commit_id`, notifications), once per commit;
 * an issue with open dependencies stays open (Gitea's ErrDependenciesLeft is let pass).
 */
async function changeStatusFor(tx: Tx, target: Target, doer: UserRow, action: ReferenceAction, commitSha: string): Promise<void> {
  const closes = action === 'closes';
  if (closes === target.issue.is_closed || (await actedBefore(tx, target.issue, closes, commitSha))) return;
  try {
    await setIssueClosed(tx, target.repo, target.issue, doer, closes, { commitId: commitSha });
  } catch (error) {
    if (!(error instanceof HttpError && error.status === 412)) throw error;
  }
}

/**
 * Gitea's UpdateIssuesCommit for the commits newly on `branch` (oldest first): each issue or pull request a message
 * names gets one `commit_ref` entry per commit, written by the pusher, where the pusher may read it; a closing or
 * reopening keyword closes or reopens an issue (not a pull request) where the pusher may write its issues (or posted
 * it), when the commit is on the repository's default branch, or on the branch the issue names as its ref.
 */
export async function applyCommitReferences(
  tx: Tx, repo: RepoRow, pusher: UserRow, branch: string, commits: PushedCommit[], rootUrl: string,
): Promise<void> {
  for (const commit of commits) {
    const marked = new Set<string>();
    for (const ref of findIssueReferences(commit.message, rootUrl)) {
      const target = await resolveReference(tx, repo, ref);
      if (!target) continue;
      const key = `${target.issue.id}:${ref.action}`;
      if (marked.has(key)) continue;
      marked.add(key);
      const { repoMode, unitMode } = await modesIn(tx, pusher, target);
      const mayClose = repoMode >= accessModes.admin || unitMode >= accessModes.write || target.issue.poster_id === pusher.id;
      if (!mayClose && unitMode < accessModes.read) continue;

      const [existing] = await tx.query('SELECT 1 FROM comment WHERE issue_id = $1 AND type = $2 AND commit_sha = $3 LIMIT 1', [
        target.issue.id, commentType.commit_ref, commit.sha,
      ]);
      if (!existing) {
        const link = `${subPath(rootUrl)}/${repo.owner_name}/${repo.name}/commit/${encodeURIComponent(commit.sha)}`;
        const content = `<a href="${escapeHtml(link)}">${escapeHtml(commit.message.split('\n', 1)[0])}</a>`;
        await addTimelineComment(tx, target.issue, pusher, { type: commentType.commit_ref, commit_sha: commit.sha, content });
      }

      if (target.issue.is_pull || !mayClose || ref.action === 'none') continue;
      const issueBranch = target.issue.ref.replace(/^refs\/heads\//, '');
      if (issueBranch ? branch !== issueBranch : branch !== repo.default_branch) continue;
      await changeStatusFor(tx, target, pusher, ref.action, commit.sha);
    }
  }
}

/**
 * Gitea's handleCloseCrossReferences after a merge: the issues the pull request's title and description name with a
 * closing (or reopening) keyword are closed (or reopened) by the merger, with the merge commit. As Gitea's
 * verifyReferencedIssue, only issues (not pull requests) take an action; one in another repository only when the
 * pull request's poster may write its issues or posted it; of several keywords for one issue the last counts.
 */
export async function applyMergedPullReferences(
  tx: Tx, pull: { issue: IssueRow; mergedCommit: string }, merger: UserRow, poster: UserRow | null, rootUrl: string,
): Promise<void> {
  const base = await findRepoById(tx, pull.issue.repo_id);
  if (!base) return;
  const refs = [...findIssueReferences(pull.issue.title, rootUrl), ...findMarkdownIssueReferences(pull.issue.content, rootUrl)];
  const actions = new Map<number, { target: Target; action: ReferenceAction }>();
  for (const ref of refs) {
    const target = await resolveReference(tx, base, ref);
    if (!target || target.issue.id === pull.issue.id) continue;
    let action = target.issue.is_pull ? 'none' : ref.action;
    if (target.repo.id !== base.id || action !== 'none') {
      const modes = poster ? await modesIn(tx, poster, target) : { repoMode: accessModes.none, unitMode: accessModes.none };
      if (modes.unitMode < accessModes.read) continue;
      const mayChange = poster?.id === target.issue.poster_id || modes.unitMode >= accessModes.write || target.issue.is_locked;
      if (action !== 'none' && !mayChange && target.repo.id !== base.id) action = 'none';
    }
    const known = actions.get(target.issue.id);
    if (!known) actions.set(target.issue.id, { target, action });
    else if (action !== 'none') known.action = action;
  }
  for (const { target, action } of actions.values()) {
    if (action !== 'none') await changeStatusFor(tx, target, merger, action, pull.mergedCommit);
  }
}
