import type { Queryable } from '../data-source.js';
import type { CommitObject } from '../git/objects.js';
import type { CommitChanges, FileChange, GitReader } from '../git/read.js';
import { findUsersByEmails } from '../models/users/emails.js';
import type { UserRow } from '../models/users/user-row.js';

/** A commit with what its JSON shows besides the object: the accounts behind its signatures and, when asked for, its changes. */
export interface CommitView {
  commit: CommitObject;
  author: UserRow | null;
  committer: UserRow | null;
  stats: { additions: number; deletions: number } | null;
  files: FileChange[] | null;
}

/** Which changes of the commits to read (one git process for the whole list), unless read already (`known`). */
export interface CommitDetail {
  stats: boolean;
  files: boolean;
  known?: Map<string, CommitChanges>;
}

/** The views of a list of commits: one look-up of accounts and at most one git process, whatever its length. */
export async function loadCommitViews(db: Queryable, reader: GitReader, commits: CommitObject[], detail: CommitDetail): Promise<CommitView[]> {
  const [changes, users] = await Promise.all([
    detail.known ?? (detail.stats || detail.files ? reader.changesOf(commits.map((c) => c.oid), detail) : null),
    findUsersByEmails(db, commits.flatMap((c) => [c.author.email, c.committer.email])),
  ]);
  return commits.map((commit) => {
    const found = changes?.get(commit.oid);
    return {
      commit,
      author: users.get(commit.author.email.toLowerCase()) ?? null,
      committer: users.get(commit.committer.email.toLowerCase()) ?? null,
      stats: detail.stats && found ? { additions: found.additions, deletions: found.deletions } : null,
      files: detail.files && found ? found.files : null,
    };
  });
}
