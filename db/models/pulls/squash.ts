import type { Queryable } from '../../data-source.js';
import type { GitIdentity, GitRepo } from '../../git/repo.js';
import { findUsersByEmails } from '../users/emails.js';
import type { UserRow } from '../users/user-row.js';
import { userIdentity } from './identities.js';

/** Who a squash merge's commit names, as Gitea's merge_squash.go: the poster authors it, the merger commits it. */
export interface SquashIdentities {
  author: GitIdentity;
  committer: GitIdentity;
}

/** Gitea's ghost user, whose NewGitSig names no address. */
const ghost: GitIdentity = { name: 'Ghost', email: '' };

/**
 * Gitea's getAuthorSignatureSquash: the pull request's poster, under the name and address of the newest squashed
 * commit whose author address is one of theirs (their primary one may be private, or their commits use another),
 * else as the poster's own identity; a poster whose account is gone is the ghost. The merger is the committer.
 */
export async function squashIdentities(
  db: Queryable, repoGit: GitRepo, baseSha: string, headSha: string, poster: UserRow | null, merger: UserRow, rootUrl: string,
): Promise<SquashIdentities> {
  const committer = userIdentity(merger, rootUrl);
  if (!poster) return { author: ghost, committer };
  const commits = await repoGit.objects.readCommits(await repoGit.log({ rev: headSha, not: baseSha }));
  const owners = await findUsersByEmails(db, commits.map((commit) => commit.author.email));
  const own = commits.find((commit) => owners.get(commit.author.email.toLowerCase())?.id === poster.id);
  const author = own ? { name: own.author.name, email: own.author.email } : userIdentity(poster, rootUrl);
  return { author, committer };
}

const signature = ({ name, email }: GitIdentity): string => `${name} <${email}>`;

/**
 * Gitea's squash message: when someone other than the author commits it, the author is named again in
 * `Co-authored-by` and `Co-committed-by` trailers appended on the next line (Gitea's AddCoCommitterTrailers, on by
 * default); then git's `commit --message` clean-up (trailing spaces and repeated blank lines dropped, one final newline).
 */
export function squashMessage(message: string, { author, committer }: SquashIdentities): string {
  let text = message.replace(/\n+$/, '');
  if (signature(author) !== signature(committer)) text += `\nCo-authored-by: ${signature(author)}\nCo-committed-by: ${signature(author)}\n`;
  const lines = text.split('\n').map((line) => line.trimEnd());
  const kept = lines.filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== ''));
  const body = kept.join('\n').replace(/^\n+|\n+$/g, '');
  return body ? `${body}\n` : '';
}
