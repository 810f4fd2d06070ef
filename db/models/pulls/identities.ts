import type { GitIdentity } from '../../git/repo.js';
import type { UserRow } from '../users/user-row.js';

/** The server's name and address for the commits it writes for others (merge commits, replayed commits). */
export function serverIdentity(config: { rootUrl: string; appName: string }): GitIdentity {
  return { name: config.appName, email: `noreply@${new URL(config.rootUrl).hostname}` };
}

/** The git identity of a user (the no-reply address when the email is private), as Gitea's NewGitSig. */
export function userIdentity(user: UserRow, rootUrl: string): GitIdentity {
  const email = user.keep_email_private ? `${user.lower_name}@noreply.${new URL(rootUrl).hostname}` : user.email;
  return { name: user.full_name || user.name, email };
}
