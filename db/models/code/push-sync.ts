import type { BranchSyncPayload } from '../../../jobs/catalogue.js';
import type { Tx } from '../../data-source.js';
import { emit } from '../../events/emit.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import { isZeroSha } from './branch-protection.js';
import { countBranches, syncBranchRows } from './branch-rows.js';
import type { RepoRow } from '../repos/repo-row.js';
import { syncPullsAfterPush } from '../pulls/pull-sync.js';
import { applyPushToIssues } from './push-references.js';

/** Commits reachable from `tip` and not from `since`; 0 when git cannot tell. */
function countCommits(repoGit: GitRepo, tip: string, since?: string): Promise<number> {
  return repoGit.count({ rev: tip, not: since }).catch(() => 0);
}

/** Every tag of a repository that arrived without a push (a fork, an adopted directory) becomes a tag release. */
export async function syncAllTags(tx: Tx, repoGit: GitRepo, repoId: number, pusherId: number | null): Promise<void> {
  await syncTags(tx, repoGit, repoId, pusherId, await repoGit.listTagNames());
}

/** The repository row, locked: branch syncs of one repository queue on it, one after the other. */
async function lockRepo(tx: Tx, repoId: number): Promise<RepoRow | null> {
  const [repo] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1 FOR UPDATE', [repoId]);
  return repo ?? null;
}

/**
 * A repository that is not empty but has no branch rows (made before branches were recorded, or whose first
 * sync has not run yet) gets them now, as Gitea does when its branch list is asked for; so do the named branches
 * whose rows do not carry their commit yet.
 */
export async function ensureBranchRows(tx: Tx, git: GitStore, repoId: number, doerId: number | null, incomplete: string[] = []): Promise<void> {
  const repo = await lockRepo(tx, repoId);
  if (!repo || repo.is_empty) return;
  await syncBranchRows(tx, git.open(repo), repoId, doerId, incomplete);
}

/**
 * Brings the database in line with a push (the branch-sync job). Rows follow what git holds now, not the
 * payload, so jobs of successive pushes may run in any order; the repository row lock serializes them.
 * A repository without branch rows gets all of its branches; otherwise only the pushed ones change. Tags
 * become tag releases. The first push into an empty repository ends its emptiness and, when the default
 * branch was not pushed, makes the first pushed branch the default (HEAD follows). The push events are
 * emitted, and the pushed commits applied to issues, once per push: a second run of the same job changes nothing.
 */
export async function syncPush(tx: Tx, git: GitStore, push: BranchSyncPayload, rootUrl: string): Promise<'done' | 'skipped'> {
  const repo = await lockRepo(tx, push.repoId);
  if (!repo) return 'skipped';
  const repoGit = git.open(repo);
  const branches = push.updates.filter((u) => u.ref.startsWith('refs/heads/')).map((u) => u.ref.slice('refs/heads/'.length));
  const tags = push.updates.filter((u) => u.ref.startsWith('refs/tags/')).map((u) => u.ref.slice('refs/tags/'.length));

  await syncBranchRows(tx, repoGit, repo.id, push.pusherId, branches);
  await syncTags(tx, repoGit, repo.id, push.pusherId, tags);
  if (repo.is_empty && (await countBranches(tx, repo.id)) > 0) await settleFirstPush(tx, repoGit, repo, branches);
  await tx.query('UPDATE repository SET size = $2 WHERE id = $1', [repo.id, await repoGit.diskSize()]);

  const [first] = await tx.query('INSERT INTO synced_push (push_id, repo_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING push_id', [push.pushId, repo.id]);
  if (first) {
    for (const update of push.updates) {
      if (!update.ref.startsWith('refs/heads/') && !update.ref.startsWith('refs/tags/')) continue;
      const commits = !update.ref.startsWith('refs/heads/') || isZeroSha(update.newSha)
        ? 0
        : await countCommits(repoGit, update.newSha, isZeroSha(update.oldSha) ? undefined : update.oldSha);
      await emit(tx, {
        kind: 'push', repoId: repo.id, doerId: push.pusherId,
        payload: { ref: update.ref, before: update.oldSha, after: update.newSha, commits },
      });
    }
    await applyPushToIssues(tx, repoGit, repo, push, rootUrl);
    // Markers only guard against retries of recent jobs.
    await tx.query(`DELETE FROM synced_push WHERE created < now() - interval '7 days'`);
  }
  await syncPullsAfterPush(tx, git, repo.id, push.pusherId, branches);
  return 'done';
}

/** Pushed tags become tag releases (a release already on that tag follows it); deleted tags take theirs away. */
async function syncTags(tx: Tx, repoGit: GitRepo, repoId: number, pusherId: number | null, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const present = await repoGit.readTagHeads(names);
  for (const tag of present) {
    const numCommits = await countCommits(repoGit, tag.commit);
    const updated = await tx.query(
      `UPDATE release SET sha1 = $3, num_commits = $4 WHERE repo_id = $1 AND lower_tag_name = $2 AND sha1 <> $3 RETURNING id`,
      [repoId, tag.tag.toLowerCase(), tag.commit, numCommits],
    );
    if (updated.length) continue;
    await tx.query(
      `INSERT INTO release (repo_id, publisher_id, tag_name, lower_tag_name, title, note, sha1, num_commits, is_tag, created)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9) ON CONFLICT (repo_id, lower_tag_name) DO NOTHING`,
      [repoId, pusherId, tag.tag, tag.tag.toLowerCase(), tag.title, tag.note, tag.commit, numCommits, tag.created || new Date()],
    );
  }
  const gone = names.filter((name) => !present.some((t) => t.tag === name)).map((n) => n.toLowerCase());
  if (gone.length === 0) return;
  await tx.query('DELETE FROM release WHERE repo_id = $1 AND is_tag AND lower_tag_name = ANY($2::text[])', [repoId, gone]);
  // A release whose tag is gone becomes a draft again, as in Gitea, and stops counting as published.
  const drafted = await tx.query<{ was_draft: boolean }>(
    `UPDATE release r SET is_draft = true, num_commits = 0, sha1 = '' FROM release before
     WHERE before.id = r.id AND r.repo_id = $1 AND NOT r.is_tag AND r.lower_tag_name = ANY($2::text[])
     RETURNING before.is_draft AS was_draft`,
    [repoId, gone],
  );
  const unpublished = drafted.filter((row) => !row.was_draft).length;
  if (unpublished) await tx.query('UPDATE repository SET num_releases = GREATEST(num_releases - $2, 0) WHERE id = $1', [repoId, unpublished]);
}

/** The first push: the repository is no longer empty, and its default branch is one that exists. */
async function settleFirstPush(tx: Tx, repoGit: GitRepo, repo: RepoRow, pushed: string[]): Promise<void> {
  const names = (await tx.query<{ name: string }>('SELECT name FROM branch WHERE repo_id = $1 ORDER BY name', [repo.id])).map((r) => r.name);
  const defaultBranch = names.includes(repo.default_branch)
    ? repo.default_branch
    : (pushed.find((name) => names.includes(name)) ?? names[0]);
  await tx.query('UPDATE repository SET is_empty = false, default_branch = $2, updated = now() WHERE id = $1', [repo.id, defaultBranch]);
  if (defaultBranch === repo.default_branch) return;
  const previous = await repoGit.readHeadBranch();
  await repoGit.setHead(defaultBranch);
  if (previous) tx.onRollback(() => repoGit.setHead(previous));
}
