import { Client, escapeFilter, InvalidCredentialsError } from 'ldapts';

/** Gitea's LDAP source fields (`login_source.cfg` of an LDAP source, "via BindDN"), as Hearth uses them. */
export interface LdapSettings {
  Host: string;
  Port: number;
  /** 0 unencrypted, 1 LDAPS, 2 StartTLS (Gitea's SecurityProtocol). */
  SecurityProtocol: 0 | 1 | 2;
  SkipVerify: boolean;
  BindDN: string;
  BindPassword: string;
  UserBase: string;
  /** The user filter, `%s` standing for the login name, e.g. `(&(objectClass=inetOrgPerson)(uid=%s))`. */
  Filter: string;
  AdminFilter: string;
  RestrictedFilter: string;
  AttributeUsername: string;
  AttributeName: string;
  AttributeSurname: string;
  AttributeMail: string;
  /** Group search: the groups under GroupDN matching GroupFilter whose GroupMemberUID holds the user's UserUID attribute (`dn`: the entry's DN). */
  GroupsEnabled: boolean;
  GroupDN: string;
  GroupFilter: string;
  GroupMemberUID: string;
  UserUID: string;
  /** JSON: `{"cn=devs,ou=groups,dc=example,dc=org": {"OrgName": ["TeamName"]}}`. */
  GroupTeamMap: string;
  GroupTeamMapRemoval: boolean;
}

export interface LdapUser {
  dn: string;
  username: string;
  fullName: string;
  email: string;
  isAdmin: boolean;
  isRestricted: boolean;
  /** The DNs of the user's groups (empty unless GroupsEnabled). */
  groups: string[];
}

/** The LDAP server could not be reached or did not answer in time: a 503 for the caller, never a hang. */
export class LdapUnavailable extends Error {}

const timeoutMs = 5000;

/** Gitea's sanitizedUserQuery: a login name with filter syntax in it is refused rather than escaped into the filter. */
function userFilter(filter: string, login: string): string | null {
  if (/[\u0000()*\\]/.test(login)) return null;
  return filter.replaceAll('%s', login);
}

/**
 * Gitea's "LDAP via BindDN" sign-in: bind with the source's account, find exactly one entry with the user filter,
 * bind as that entry with the password, then read the admin and restricted filters on the entry. Null when the
 * name or password is wrong (an empty password is never tried: it would be an anonymous bind).
 */
export async function authenticateLdap(settings: LdapSettings, login: string, password: string): Promise<LdapUser | null> {
  const filter = userFilter(settings.Filter, login);
  if (!filter || password === '') return null;
  const scheme = settings.SecurityProtocol === 1 ? 'ldaps' : 'ldap';
  const url = `${scheme}://${settings.Host.includes(':') ? `[${settings.Host}]` : settings.Host}:${settings.Port}`;
  const tls = { rejectUnauthorized: !settings.SkipVerify, servername: settings.Host };
  const client = new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs, tlsOptions: settings.SecurityProtocol === 1 ? tls : undefined });
  try {
    if (settings.SecurityProtocol === 2) await client.startTLS(tls);
    if (settings.BindDN) await client.bind(settings.BindDN, settings.BindPassword);
    const uidAttribute = settings.GroupsEnabled && settings.UserUID && settings.UserUID.toLowerCase() !== 'dn' ? settings.UserUID : '';
    const attributes = [settings.AttributeUsername, settings.AttributeName, settings.AttributeSurname, settings.AttributeMail, uidAttribute].filter(Boolean);
    const { searchEntries } = await client.search(settings.UserBase, { scope: 'sub', filter, attributes, sizeLimit: 2 });
    if (searchEntries.length !== 1) return null;
    const entry = searchEntries[0];
    const first = (name: string): string => {
      const value = name ? entry[name] : undefined;
      const one = Array.isArray(value) ? value[0] : value;
      return one === undefined ? '' : Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
    };
    try {
      await client.bind(entry.dn, password);
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return null;
      throw error;
    }
    const matches = async (extra: string): Promise<boolean> => {
      if (!extra.trim()) return false;
      const { searchEntries: found } = await client.search(entry.dn, { scope: 'base', filter: extra, attributes: ['1.1'] });
      return found.length > 0;
    };
    const groups = async (): Promise<string[]> => {
      if (!settings.GroupsEnabled || !settings.GroupDN || !settings.GroupMemberUID) return [];
      const uid = uidAttribute ? first(uidAttribute) : entry.dn;
      if (!uid) return [];
      const member = `(${settings.GroupMemberUID}=${escapeFilter`${uid}`})`;
      const filter = settings.GroupFilter.trim() ? `(&${settings.GroupFilter.trim()}${member})` : member;
      const { searchEntries: found } = await client.search(settings.GroupDN, { scope: 'sub', filter, attributes: ['1.1'] });
      return found.map((g) => g.dn);
    };
    return {
      dn: entry.dn,
      groups: await groups(),
      username: first(settings.AttributeUsername) || login,
      fullName: [first(settings.AttributeName), first(settings.AttributeSurname)].filter(Boolean).join(' '),
      email: first(settings.AttributeMail),
      isAdmin: await matches(settings.AdminFilter),
      isRestricted: await matches(settings.RestrictedFilter),
    };
  } catch (error) {
    if (error instanceof InvalidCredentialsError) throw new LdapUnavailable('the login source\'s bind DN was refused by the LDAP server');
    if (isNetworkError(error)) throw new LdapUnavailable(`the LDAP server of the login source does not answer (${(error as Error).message})`);
    throw error;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

function isNetworkError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error)?.message ?? '';
  return typeof code === 'string' || /timeout|timed out|connect|socket|ECONN|closed/i.test(message);
}
