import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { hasClient, runClient } from '../helpers/clients.js';
import { startHearth } from '../helpers/hearth.js';
import { stored } from './stored.js';

/** The plugins a jar project's deploy and a consumer's compile need, pinned in the test POMs; there is no network to fetch them. */
const cachedRepository = path.join(os.homedir(), '.m2', 'repository');
const plugins: Record<string, string> = {
  'maven-resources-plugin': '3.3.1', 'maven-compiler-plugin': '3.13.0', 'maven-surefire-plugin': '3.2.5',
  'maven-jar-plugin': '3.4.1', 'maven-install-plugin': '3.1.2', 'maven-deploy-plugin': '3.1.2',
};
const neededPlugins = Object.entries(plugins).map(([name, version]) => `${name}/${version}`);
const pluginManagement = `<build><pluginManagement><plugins>${Object.entries(plugins)
  .map(([name, version]) => `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>${name}</artifactId><version>${version}</version></plugin>`).join('')}</plugins></pluginManagement></build>`;
const mvnMissing = !hasClient('mvn', ['-v'])
  ? 'mvn is not installed'
  : neededPlugins.some((plugin) => !existsSync(path.join(cachedRepository, 'org/apache/maven/plugins', plugin)))
    ? `the Maven plugins a build needs (${neededPlugins.join(', ')}) are not in ~/.m2 and there is no network to fetch them`
    : null;

const pom = (group: string, artifact: string, version: string, extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${group}</groupId>
  <artifactId>${artifact}</artifactId>
  <version>${version}</version>
  <packaging>jar</packaging>
  <properties><maven.compiler.source>17</maven.compiler.source><maven.compiler.target>17</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  ${extra}
</project>
`;

test('mvn deploys a jar to Hearth and a consumer resolves it into an empty local repository', async (t) => {
  if (mvnMissing) {
    t.log(`skipped: ${mvnMissing}; the raw-HTTP test below speaks the same protocol`);
    t.pass();
    return;
  }
  t.timeout(600_000, 'Maven builds are slow on a loaded machine');
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-mvn-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const url = `${hearth.rootUrl}api/packages/alice/maven`;
  // a temporary local repository holding (hard links to) the cached plugins; everything else comes from Hearth only
  const pluginRepo = path.join(home, 'local-repository');
  t.is((await runClient('cp', ['-al', cachedRepository, pluginRepo], { cwd: home, env: {} })).code, 0);
  t.false(existsSync(path.join(pluginRepo, 'org/hearth')));
  writeFileSync(path.join(home, 'settings.xml'), `<settings>
  <localRepository>${pluginRepo}</localRepository>
  <mirrors><mirror><id>hearth</id><mirrorOf>*</mirrorOf><url>${url}</url></mirror></mirrors>
  <servers><server><id>hearth</id><username>alice</username><password>${alice.token}</password></server></servers>
</settings>`);
  const mvn = (args: string[], cwd: string) => runClient('mvn', ['-B', '-llr', '-s', path.join(home, 'settings.xml'), ...args], { cwd, env: { HOME: home, JAVA_HOME: process.env.JAVA_HOME ?? '' }, timeoutMs: 240_000 });

  const lib = path.join(home, 'lib');
  mkdirSync(path.join(lib, 'src/main/java/org/hearth'), { recursive: true });
  writeFileSync(path.join(lib, 'pom.xml'), pom('org.hearth', 'greeter', '1.0.0', `<distributionManagement><repository><id>hearth</id><url>${url}</url></repository></distributionManagement>${pluginManagement}`));
  writeFileSync(path.join(lib, 'src/main/java/org/hearth/Greeter.java'), 'package org.hearth;\npublic class Greeter { public static String greet() { return "hello from hearth"; } }\n');
  const deployed = await mvn(['deploy', '-DskipTests'], lib);
  t.is(deployed.code, 0, deployed.stdout.slice(-3000));

  const metadata = await (await fetch(`${url}/org/hearth/greeter/maven-metadata.xml`)).text();
  t.regex(metadata, /<version>1\.0\.0<\/version>/);

  const app = path.join(home, 'app');
  mkdirSync(path.join(app, 'src/main/java/app'), { recursive: true });
  writeFileSync(path.join(app, 'pom.xml'), pom('org.example', 'app', '1.0.0', `<dependencies><dependency><groupId>org.hearth</groupId><artifactId>greeter</artifactId><version>1.0.0</version></dependency></dependencies>${pluginManagement}`));
  writeFileSync(path.join(app, 'src/main/java/app/Main.java'), 'package app;\npublic class Main { public static void main(String[] a) { System.out.println(org.hearth.Greeter.greet()); } }\n');
  // deploy installed the jar into its own local repository: the consumer starts from another copy without it
  const consumerRepo = path.join(home, 'consumer-repository');
  t.is((await runClient('cp', ['-al', cachedRepository, consumerRepo], { cwd: home, env: {} })).code, 0);
  const compiled = await mvn(['compile', `-Dmaven.repo.local=${consumerRepo}`], app);
  t.is(compiled.code, 0, compiled.stdout.slice(-3000));
  t.regex(compiled.stdout, /Downloaded from hearth: .*\/org\/hearth\/greeter\/1\.0\.0\/greeter-1\.0\.0\.jar/);
  const resolved = path.join(consumerRepo, 'org/hearth/greeter/1.0.0/greeter-1.0.0.jar');
  t.true(existsSync(resolved));
  const served = Buffer.from(await (await fetch(`${url}/org/hearth/greeter/1.0.0/greeter-1.0.0.jar`)).arrayBuffer());
  t.deepEqual(readFileSync(resolved), served);
});

test('the Maven protocol over raw HTTP: PUT, GET, HEAD, generated metadata, checksums, snapshots and refusals', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_MAVEN: '1 KiB' });
  const alice = await hearth.createUser('alice');
  const url = `${hearth.rootUrl}api/packages/alice/maven`;
  const auth = { Authorization: alice.basic };
  const put = (p: string, body: string | Buffer, headers: Record<string, string> = auth) => fetch(`${url}/${p}`, { method: 'PUT', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const jar = Buffer.from('PK fake jar bytes');
  const dir = 'com/example/lib/1.0';
  const empty = await stored(hearth);

  // the unauthenticated first try mvn makes, answered with the challenge it needs
  const challenge = await put(`${dir}/lib-1.0.jar`, jar, {});
  t.is(challenge.status, 401);
  t.regex(challenge.headers.get('www-authenticate') ?? '', /^Basic /);
  t.is((await put(`${dir}/lib-1.0.pom`, '<project><oops')).status, 400);
  t.is((await put(`${dir}/lib-1.0.pom`, pom('com.example', 'other', '1.0'))).status, 400);
  t.is((await put('com/exa mple/lib/1.0/lib-1.0.jar', jar)).status, 400);
  const oversized = await put(`${dir}/lib-1.0.jar`, Buffer.alloc(4096, 1));
  t.is(oversized.status, 413);
  t.is(await oversized.text(), 'maximum allowed package type size exceeded');
  t.deepEqual(await stored(hearth), empty);

  t.is((await put(`${dir}/lib-1.0.jar`, jar)).status, 201);
  for (const kind of ['md5', 'sha1', 'sha256', 'sha512']) {
    t.is((await put(`${dir}/lib-1.0.jar.${kind}`, createHash(kind).update(jar).digest('hex'))).status, 200, kind);
  }
  const wrong = await put(`${dir}/lib-1.0.jar.sha1`, 'da39a3ee5e6b4b0d3255bfef95601890afd80709');
  t.is(wrong.status, 400);
  t.regex(await wrong.text(), /checksum mismatch/);
  t.is((await put(`${dir}/lib-1.0.pom`, pom('com.example', 'lib', '1.0'))).status, 201);
  t.is((await put(`${dir}/lib-1.0.jar`, jar)).status, 409);
  t.is((await put('com/example/lib/maven-metadata.xml', '<metadata/>')).status, 200);

  const head = await fetch(`${url}/${dir}/lib-1.0.jar`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-length'), String(jar.length));
  t.is(head.headers.get('content-type'), 'application/java-archive');
  t.truthy(head.headers.get('last-modified'));
  t.is((await head.text()), '');
  t.deepEqual(Buffer.from(await (await fetch(`${url}/${dir}/lib-1.0.jar`)).arrayBuffer()), jar);
  t.is(await (await fetch(`${url}/${dir}/lib-1.0.jar.sha256`)).text(), createHash('sha256').update(jar).digest('hex'));
  t.is((await fetch(`${url}/${dir}/lib-1.0-sources.jar`)).status, 404);

  // snapshots: timestamped files and the version's own metadata, rewritten by each deploy
  const snap = 'com/example/lib/2.0-SNAPSHOT';
  t.is((await put(`${snap}/lib-2.0-20240101.120000-1.jar`, Buffer.from('snap 1'))).status, 201);
  t.is((await put(`${snap}/maven-metadata.xml`, '<metadata><version>2.0-SNAPSHOT</version><n>1</n></metadata>')).status, 201);
  t.is((await put(`${snap}/maven-metadata.xml`, '<metadata><version>2.0-SNAPSHOT</version><n>2</n></metadata>')).status, 201);
  t.regex(await (await fetch(`${url}/${snap}/maven-metadata.xml`)).text(), /<n>2<\/n>/);

  const metadata = await (await fetch(`${url}/com/example/lib/maven-metadata.xml`)).text();
  t.regex(metadata, /<groupId>com\.example<\/groupId>\s*<artifactId>lib<\/artifactId>/);
  t.regex(metadata, /<latest>2\.0-SNAPSHOT<\/latest>\s*<release>1\.0<\/release>/);
  t.regex(metadata, /<version>1\.0<\/version>\s*<version>2\.0-SNAPSHOT<\/version>/);
  t.is(await (await fetch(`${url}/com/example/lib/maven-metadata.xml.sha1`)).text(), createHash('sha1').update(metadata).digest('hex'));

  const files = await hearth.call('GET', '/packages/alice/maven/com.example:lib/1.0/files', { auth: alice.bearer });
  t.deepEqual(files.body.map((f: { name: string }) => f.name), ['lib-1.0.jar', 'lib-1.0.pom']);
  const state = await stored(hearth);
  t.like(state, { packages: 1, versions: 2, files: 4 });
  t.is(state.blobFiles.length, state.blobs);
});
