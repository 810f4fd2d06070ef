import { createServer, type Socket } from 'node:net';
import test from 'ava';
import { Attribute, Change, Client } from 'ldapts';
import { inTx } from '../../db/data-source.js';
import type { LdapSettings } from '../../db/net/ldap.js';
import { build } from '../helpers/build.js';
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

dn: ou=groups,${suffix}
objectClass: organizationalUnit
ou: groups

dn: cn=devs,ou=groups,${suffix}
objectClass: groupOfNames
cn: devs
member: uid=carol,ou=people,${suffix}

dn: cn=ops,ou=groups,${suffix}
objectClass: groupOfNames
cn: ops
member: uid=dave,ou=people,${suffix}
`;

async function withSource(hearth: TestHearth, ldap: Slapd, port = ldap.port, groups: Partial<LdapSettings> = {}): Promise<number> {
  const source = await inTx(hearth.deps, (tx) => createLdapSource(tx, {
    name: `ldap-${port}`,
    settings: {
      ...groups,
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

test('LDAP groups map to organization teams at each sign-in, and leaving a group removes the membership when removal is on', async (t) => {
  const ldap = await startSlapd(t, ldif('dc=example,dc=org'));
  if (typeof ldap === 'string') {
    console.log(`skipped: ${ldap}`);
    t.pass(ldap);
    return;
  }
  const hearth = await startHearth(t);
  const root = await hearth.createUser('root', { admin: true });
  const acme = await build.org(hearth, root, { name: 'acme' });
  await build.team(hearth, acme, { name: 'devs' });
  await build.team(hearth, acme, { name: 'ops' });
  const groups = `ou=groups,${ldap.suffix}`;
  await withSource(hearth, ldap, ldap.port, {
    GroupsEnabled: true, GroupDN: groups, GroupFilter: '(objectClass=groupOfNames)', GroupMemberUID: 'member', UserUID: 'dn', GroupTeamMapRemoval: true,
    GroupTeamMap: JSON.stringify({ [`cn=devs,${groups}`]: { acme: ['devs'] }, [`CN=ops,${groups}`]: { acme: ['ops'], nowhere: ['x'] } }),
  });
  const teamsOf = async (name: string): Promise<string[]> => (await hearth.store.db.query<{ name: string }>(
    'SELECT t.name FROM team_user tu JOIN team t ON t.id = tu.team_id JOIN "user" u ON u.id = tu.uid WHERE u.lower_name = $1 ORDER BY t.name', [name],
  )).map((r) => r.name);

  t.is((await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') })).status, 200);
  t.deepEqual(await teamsOf('carol'), ['devs']);
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('dave', 'dave-pass') })).status, 200);
  t.deepEqual(await teamsOf('dave'), ['ops']);

  const admin = new Client({ url: `ldap://127.0.0.1:${ldap.port}` });
  await admin.bind(ldap.adminDn, ldap.adminPassword);
  const carolDn = `uid=carol,ou=people,${ldap.suffix}`;
  await admin.modify(`cn=ops,${groups}`, new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [carolDn] }) }));
  await admin.modify(`cn=devs,${groups}`, new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values: [`uid=dave,ou=people,${ldap.suffix}`] }) }));
  await admin.unbind();

  t.deepEqual(await teamsOf('carol'), ['devs'], 'nothing changes before the next sign-in');
  t.is((await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') })).status, 200);
  t.deepEqual(await teamsOf('carol'), ['ops']);
  t.is((await hearth.store.db.query('SELECT 1 FROM org_user o JOIN "user" u ON u.id = o.uid WHERE u.lower_name = $1', ['carol'])).length, 1);
});

test('an LDAP server that accepts connections and never answers: a 503 after the timeout, not a hang, and no account', async (t) => {
  const silent = createServer((socket) => socket.on('data', () => undefined));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { silent.close(() => resolve()); for (const s of sockets) s.destroy(); }));
  const sockets: Socket[] = [];
  silent.on('connection', (s) => sockets.push(s));
  const hearth = await startHearth(t);
  const port = (silent.address() as { port: number }).port;
  await withSource(hearth, { port, suffix: 'dc=example,dc=org', adminDn: 'cn=admin,dc=example,dc=org', adminPassword: 'x' });
  const started = Date.now();
  const answer = await hearth.call('GET', '/user', { auth: basicAuth('carol', 'carol-pass') });
  t.is(answer.status, 503);
  t.regex(answer.body.message, /unavailable/);
  t.true(Date.now() - started < 15_000);
  t.is((await hearth.store.db.query('SELECT 1 FROM "user" WHERE lower_name = $1', ['carol'])).length, 0);
});
