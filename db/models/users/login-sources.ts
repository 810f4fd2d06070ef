import type { Queryable, Tx } from '../../data-source.js';
import { decryptSecret, encryptSecret } from '../../crypto.js';
import { invalid, isUniqueViolation } from '../../errors.js';
import type { LdapSettings } from '../../net/ldap.js';
import { parseGroupTeamMap } from '../orgs/group-team-sync.js';

/** A row of `login_source` (Gitea's), its `cfg` as stored: an LDAP source's bind password sealed with SECRET_KEY. */
export interface LoginSourceRow {
  id: number;
  type: 'local' | 'ldap';
  name: string;
  is_active: boolean;
  cfg: Record<string, unknown>;
}

const ldapDefaults: LdapSettings = {
  Host: '', Port: 389, SecurityProtocol: 0, SkipVerify: false, BindDN: '', BindPassword: '', UserBase: '', Filter: '',
  AdminFilter: '', RestrictedFilter: '', AttributeUsername: '', AttributeName: '', AttributeSurname: '', AttributeMail: 'mail',
  GroupsEnabled: false, GroupDN: '', GroupFilter: '', GroupMemberUID: '', UserUID: '', GroupTeamMap: '', GroupTeamMapRemoval: false,
};

/** Adds an LDAP (via BindDN) source, as `gitea admin auth add-ldap` does. */
export async function createLdapSource(
  tx: Tx,
  input: { name: string; isActive?: boolean; settings: Partial<LdapSettings> & Pick<LdapSettings, 'Host' | 'UserBase' | 'Filter'> },
  secretKey: string,
): Promise<LoginSourceRow> {
  const settings = { ...ldapDefaults, ...input.settings };
  if (!input.name.trim()) throw invalid('[name]: Required');
  if (!settings.Host || !settings.UserBase || !settings.Filter.includes('%s')) throw invalid('an LDAP source needs a host, a user base and a user filter with %s');
  if (![0, 1, 2].includes(settings.SecurityProtocol) || !Number.isInteger(settings.Port) || settings.Port < 1 || settings.Port > 65535) {
    throw invalid('invalid LDAP port or security protocol');
  }
  try {
    parseGroupTeamMap(settings.GroupTeamMap);
  } catch (error) {
    throw invalid(`GroupTeamMap: ${(error as Error).message}`);
  }
  const cfg = { ...settings, BindPassword: settings.BindPassword ? encryptSecret(secretKey, settings.BindPassword) : '' };
  try {
    const [row] = await tx.query<LoginSourceRow>(
      `INSERT INTO login_source (type, name, is_active, cfg) VALUES ('ldap', $1, $2, $3) RETURNING id::int, type, name, is_active, cfg`,
      [input.name.trim(), input.isActive ?? true, JSON.stringify(cfg)],
    );
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`login source already exists [name: ${input.name}]`);
    throw error;
  }
}

export async function findLoginSource(db: Queryable, id: number): Promise<LoginSourceRow | null> {
  const [row] = await db.query<LoginSourceRow>('SELECT id::int, type, name, is_active, cfg FROM login_source WHERE id = $1', [id]);
  return row ?? null;
}

export async function listActiveLdapSources(db: Queryable): Promise<LoginSourceRow[]> {
  return db.query<LoginSourceRow>(`SELECT id::int, type, name, is_active, cfg FROM login_source WHERE type = 'ldap' AND is_active ORDER BY id`);
}

/** The source's settings with the bind password unsealed, for the connection only. */
export function ldapSettingsOf(source: LoginSourceRow, secretKey: string): LdapSettings {
  const settings = { ...ldapDefaults, ...(source.cfg as Partial<LdapSettings>) };
  return { ...settings, BindPassword: settings.BindPassword ? decryptSecret(secretKey, settings.BindPassword) : '' };
}
