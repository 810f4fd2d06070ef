import { inTx } from '../../db/data-source.js';
import { unavailable } from '../../db/errors.js';
import { checkUserPassword } from '../../db/models/users/passwords.js';
import { parseGroupTeamMap, syncGroupTeams } from '../../db/models/orgs/group-team-sync.js';
import { findLoginSource, ldapSettingsOf, listActiveLdapSources, type LoginSourceRow } from '../../db/models/users/login-sources.js';
import { createUser, findUserByLogin } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { authenticateLdap, LdapUnavailable, type LdapUser } from '../../db/net/ldap.js';
import type { Deps } from '../deps.js';

/**
 * A sign-in with a name (or address) and a password, as Gitea's UserSignIn: a local user's password is checked (and
 * rehashed, see checkUserPassword); a user of an LDAP source is checked against that source at each sign-in (no
 * password is stored); an unknown name is tried against every active LDAP source and, when one knows it, the account
 * is created from its attributes. Null for a wrong name or password; an unreachable LDAP server is a 503.
 */
export async function signInWithPassword(deps: Deps, login: string, password: string): Promise<UserRow | null> {
  const user = await findUserByLogin(deps.db, login);
  if (user && user.login_source === 0) return (await checkUserPassword(deps.db, user, password, deps.config.security.passwordHashAlgo)) ? user : null;
  if (user) {
    const source = await findLoginSource(deps.db, user.login_source);
    if (!source || !source.is_active || source.type !== 'ldap') return null;
    const found = await ask(deps, source, user.login_name || user.name, password);
    if (!found) return null;
    await syncTeams(deps, source, user, found);
    return user;
  }
  for (const source of await listActiveLdapSources(deps.db)) {
    const found = await ask(deps, source, login, password);
    if (!found) continue;
    const created = await registerFromLdap(deps, source, login, found);
    await syncTeams(deps, source, created, found);
    return created;
  }
  return null;
}

/** Team memberships follow the user's LDAP groups at each sign-in, through the source's group-to-team map. */
async function syncTeams(deps: Deps, source: LoginSourceRow, user: UserRow, found: LdapUser): Promise<void> {
  const settings = ldapSettingsOf(source, deps.config.security.secretKey);
  if (!settings.GroupsEnabled || !settings.GroupTeamMap.trim()) return;
  const map = parseGroupTeamMap(settings.GroupTeamMap);
  await inTx(deps, (tx) => syncGroupTeams(tx, user, found.groups, map, settings.GroupTeamMapRemoval));
}

async function ask(deps: Deps, source: LoginSourceRow, login: string, password: string): Promise<LdapUser | null> {
  try {
    return await authenticateLdap(ldapSettingsOf(source, deps.config.security.secretKey), login, password);
  } catch (error) {
    if (error instanceof LdapUnavailable) {
      deps.log.warn({ source: source.name, err: error.message }, 'ldap sign-in');
      throw unavailable(`login source ${source.name} is unavailable, try again later`);
    }
    throw error;
  }
}

function registerFromLdap(deps: Deps, source: LoginSourceRow, login: string, found: LdapUser): Promise<UserRow> {
  const host = new URL(deps.config.rootUrl).hostname;
  return inTx(deps, (tx) => createUser(tx, {
    username: found.username, email: found.email || `${found.username}@noreply.${host}`, full_name: found.fullName,
    source_id: source.id, login_name: login, is_admin: found.isAdmin, restricted: found.isRestricted,
  }, { passwordAlgo: deps.config.security.passwordHashAlgo }));
}
