import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { build } from '../helpers/build.js';
import { startHearth } from '../helpers/hearth.js';
import { commitFile, git, ok, refOnServer, remote, scratch } from './git-client.js';

test('anonymous clone of a public repository; push with a token; fetch over protocol v0 and v2', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tools', autoInit: true });
  const home = scratch(t);

  const started = process.hrtime.bigint();
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'alice', 'tools'), 'anon']));
  t.log(`anonymous clone of a one-commit repository: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms`);
  const anon = path.join(home, 'anon');
  t.true(existsSync(path.join(anon, 'README.md')));

  const before = await refOnServer(hearth, 'alice', 'tools', 'refs/heads/main');
  const local = await commitFile(home, anon, 'a.txt', 'a\n');
  const refused = await git(home, ['push', 'origin', 'main'], anon);
  t.not(refused.code, 0, 'an anonymous push asks for credentials');
  t.regex(refused.stderr, /could not read Username|Authentication failed/);
  t.is(await refOnServer(hearth, 'alice', 'tools', 'refs/heads/main'), before);

  const withToken = remote(hearth, 'alice', 'tools', { user: 'alice', secret: alice.token });
  const pushed = await git(home, ['push', withToken, 'main'], anon);
  t.is(pushed.code, 0, pushed.stderr);
  t.is(await refOnServer(hearth, 'alice', 'tools', 'refs/heads/main'), local);

  for (const version of ['0', '2']) {
    const dir = `v${version}`;
    await ok(git(home, ['-c', `protocol.version=${version}`, 'clone', '--quiet', remote(hearth, 'alice', 'tools'), dir]));
    t.is((await ok(git(home, ['rev-parse', 'HEAD'], path.join(home, dir)))).trim(), local, `protocol v${version}`);
  }
  // The `.git` suffix is optional.
  await ok(git(home, ['clone', '--quiet', new URL('alice/tools', hearth.rootUrl).toString(), 'bare-name']));
  t.is(readFileSync(path.join(home, 'bare-name', 'a.txt'), 'utf8'), 'a\n');
});

test('a private repository is 401 with a Basic challenge to anonymous callers and 404 to strangers', async (t) => {
  const hearth = await startHearth(t);
  const carol = await hearth.createUser('carol');
  const dave = await hearth.createUser('dave');
  await build.repo(hearth, carol, { name: 'secret', private: true, autoInit: true });

  const infoRefs = (repo: string, auth?: string) =>
    fetch(new URL(`carol/${repo}.git/info/refs?service=git-upload-pack`, hearth.rootUrl), { headers: auth ? { Authorization: auth } : {} });
  for (const repo of ['secret', 'missing']) {
    const anonymous = await infoRefs(repo);
    t.is(anonymous.status, 401, repo);
    t.is(anonymous.headers.get('www-authenticate'), 'Basic realm="Hearth"');
    t.is((await infoRefs(repo, dave.basic)).status, 404, repo);
  }
  const wrongPassword = await infoRefs('secret', `Basic ${Buffer.from('carol:nope').toString('base64')}`);
  t.is(wrongPassword.status, 401);
  t.is(wrongPassword.headers.get('www-authenticate'), 'Basic realm="Hearth"');
  const owner = await infoRefs('secret', carol.basic);
  t.is(owner.status, 200);
  t.is(owner.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
  t.true((await owner.text()).startsWith('001e# service=git-upload-pack\n0000'));

  const home = scratch(t);
  const anonymous = await git(home, ['clone', remote(hearth, 'carol', 'secret'), 'a']);
  t.not(anonymous.code, 0);
  t.regex(anonymous.stderr, /could not read Username/);
  const stranger = await git(home, ['clone', remote(hearth, 'carol', 'secret', { user: 'dave', secret: dave.token }), 'b']);
  t.not(stranger.code, 0);
  t.regex(stranger.stderr, /not found/);
  t.false(existsSync(path.join(home, 'b', 'README.md')));
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'carol', 'secret', { user: 'carol', secret: carol.password }), 'c']));
  t.true(existsSync(path.join(home, 'c', 'README.md')));
});

test('pushing needs write access and a token with write:repository', async (t) => {
  const hearth = await startHearth(t);
  const erin = await hearth.createUser('erin');
  const frank = await hearth.createUser('frank');
  const reader = await hearth.createUser('reader', { scopes: ['read:repository'] });
  const made = await build.repo(hearth, erin, { name: 'app', autoInit: true });
  t.is((await hearth.call('POST', '/user/repos', { auth: reader.basic, body: { name: 'own', auto_init: true } })).status, 201);
  const home = scratch(t);
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'erin', 'app'), 'app']));
  const work = path.join(home, 'app');
  const before = await refOnServer(hearth, 'erin', 'app', 'refs/heads/main');
  const commit = await commitFile(home, work, 'f.txt', 'f\n');

  const denied = await git(home, ['push', remote(hearth, 'erin', 'app', { user: 'frank', secret: frank.token }), 'main'], work);
  t.not(denied.code, 0);
  t.regex(denied.stderr, /403/);
  t.is(await refOnServer(hearth, 'erin', 'app', 'refs/heads/main'), before, 'a refused push leaves the ref alone');

  // A read-only token clones its owner's repository but cannot push to it.
  await ok(git(home, ['clone', '--quiet', remote(hearth, 'reader', 'own', { user: 'reader', secret: reader.token }), 'own']));
  const readOnly = await git(home, ['push', remote(hearth, 'reader', 'own', { user: 'reader', secret: reader.token }), 'HEAD:refs/heads/x'], path.join(home, 'own'));
  t.not(readOnly.code, 0);
  t.regex(readOnly.stderr, /403/);
  t.is(await refOnServer(hearth, 'reader', 'own', 'refs/heads/x'), null);

  await hearth.store.db.query('INSERT INTO collaboration (repo_id, user_id, mode) VALUES ($1, $2, 2)', [made.id, frank.user.id]);
  const allowed = await git(home, ['push', remote(hearth, 'erin', 'app', { user: 'frank', secret: frank.token }), 'main'], work);
  t.is(allowed.code, 0, allowed.stderr);
  t.is(await refOnServer(hearth, 'erin', 'app', 'refs/heads/main'), commit);

  await hearth.store.db.query('UPDATE repository SET is_archived = true WHERE id = $1', [made.id]);
  await commitFile(home, work, 'g.txt', 'g\n');
  const archived = await git(home, ['push', remote(hearth, 'erin', 'app', { user: 'erin', secret: erin.token }), 'main'], work);
  t.not(archived.code, 0);
  t.is(await refOnServer(hearth, 'erin', 'app', 'refs/heads/main'), commit);
});

test('a gzip-compressed upload-pack request is unpacked before git reads it', async (t) => {
  const hearth = await startHearth(t);
  const gail = await hearth.createUser('gail');
  await build.repo(hearth, gail, { name: 'zip', autoInit: true });
  const head = await refOnServer(hearth, 'gail', 'zip', 'refs/heads/main');
  const pkt = (line: string): string => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
  const request = `${pkt(`want ${head} side-band-64k ofs-delta\n`)}0000${pkt('done\n')}`;
  const answer = await fetch(new URL('gail/zip.git/git-upload-pack', hearth.rootUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
    body: gzipSync(Buffer.from(request)),
  });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/x-git-upload-pack-result');
  const body = Buffer.from(await answer.arrayBuffer());
  t.true(body.subarray(0, 8).toString() === '0008NAK\n', body.subarray(0, 40).toString());
  t.true(body.includes(Buffer.from('PACK')), 'the answer carries a pack');

  const wrongType = await fetch(new URL('gail/zip.git/git-upload-pack', hearth.rootUrl), { method: 'POST', body: request });
  t.is(wrongType.status, 415);
  const dumb = await fetch(new URL('gail/zip.git/info/refs', hearth.rootUrl));
  t.is(dumb.status, 403);
});
