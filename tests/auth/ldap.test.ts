import test from 'ava';
import { inTx } from '../../db/data-source.js';
import { createLdapSource } from '../../db/models/users/login-sources.js';
import { basicAuth, startHearth, type TestHearth } from '../helpers/hearth.js';
import { startSlapd, type Slapd } from '../helpers/slapd.js';

const ldif = (suffix: string): string => `dn: ${suffix}
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,${suffix}
objectClass: organizationalUnit
ou: people

dn: uid=carol,ou=people,${suffix}
objectClass: inetOrgPerson
uid: carol
cn: Carol Jones
givenName: Carol
sn: Jones
mail: carol@example.org
employeeType: admin
userPassword: carol-pass

dn: uid=dave,ou=people,${suffix}
objectClass: inetOrgPerson
uid: dave
cn: Dave Smith
givenName: Dave
sn: Smith
mail: dave@example.org
userPassword: dave-pass
`;

async function withSource(hearth: TestHearth, ldap: Slapd, port = ldap.port): Promise<number> {
  const source = await inTx(hearth.deps, (tx) => createLdapSource(tx, {
    name: `ldap-${port}`,
    settings: {
      Host: '127.0.0.1', Port: port, BindDN: ldap.adminDn, BindPassword: ldap.adminPassword, UserBase: `ou=people,${ldap.suffix}`,
      Filter: '(&(objectClass=inetOrgPerson)(uid=%s))', AdminFilter: '(employeeType=admin)', AttributeUsername: 'uid',
      AttributeName: 'givenName', AttributeSurname: 'sn', AttributeMail: 'mail',
    },
  }, hearth.config.security.secretKey));
  return source.id;
}

test('LDAP via bind DN against a real slapd: first sign-in creates the account (admin filter applied, no password stored), later ones check LDAP; wrong passwords, filter injection and a down server are refused', async (t) => {
  const ldap = await startSlapd(t, ldif('dc=example,dc=org'));
  if (typeof ldap === 'string') {
    console.log(`skipped: ${ldap}`);
    t.pass(ldap);
    return;
  }
  const hearth = await startHearth(t);
  const sourceId = await withSource(hearth, ldap);
  const [sealed] = await hearth.store.db.query<{ cfg: { BindPassword: string } }>('SELECT cfg FROM login_source WHERE id = $1', [sourceId]);
  t.false(JSON.stringify(sealed.cfg).includes(ldap.adminPassword), 'the bind password is sealed');

  const first = await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') });
  t.is(first.status, 200);
  t.is(first.body.login, 'carol');
  t.is(first.body.email, 'carol@example.org');
  t.is(first.body.full_name, 'Carol Jones');
  t.true(first.body.is_admin);
  const [row] = await hearth.store.db.query<{ passwd: string; login_source: string; login_name: string }>('SELECT passwd, login_source, login_name FROM "user" WHERE lower_name = $1', ['carol']);
  t.is(row.passwd, '');
  t.is(Number(row.login_source), sourceId);
  t.is(row.login_name, 'carol');
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') })).status, 200, 'the second sign-in finds the account');
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('carol', 'wrong') })).status, 401);
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('carol', '') })).status, 401, 'no anonymous bind');
  const dave = await hearth.call('GET', '/user', { auth: basicAuth('dave', 'dave-pass') });
  t.is(dave.status, 200);
  t.false(dave.body.is_admin);
  for (const name of ['*', 'carol)(uid=*', 'c*']) {
    t.is((await hearth.call('GET', '/user', { auth: basicAuth(name, 'carol-pass') })).status, 401, name);
  }
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('nobody', 'x') })).status, 401);
  t.is((await hearth.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM "user" WHERE login_source = $1', [sourceId]))[0].n, 2);

  const admin = await hearth.createUser('root', { admin: true });
  const created = await hearth.call('POST', '/admin/users', { auth: admin.basic, body: { username: 'erin', email: 'erin@example.org', source_id: sourceId, login_name: 'erin', must_change_password: false } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.source_id, sourceId);

  await hearth.store.db.query(`UPDATE login_source SET cfg = jsonb_set(cfg, '{Port}', '1') WHERE id = $1`, [sourceId]);
  const down = await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') });
  t.is(down.status, 503);
  t.regex(down.body.message, /unavailable/);
});
