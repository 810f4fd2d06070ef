import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { hasClient, runClient } from '../helpers/clients.js';
import { root } from '../helpers/processes.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { rawExchange } from './raw-exchange.js';
import { stored } from './stored.js';

const python = hasClient('python3') ? 'python3' : null;
const pipMissing = python && hasClient('python3', ['-m', 'pip', '--version']) ? null : 'pip is not installed';

/** Why twine cannot be run (installed first when it can be), or null when it can. */
function twineMissing(): string | null {
  const installer = spawnSync('bash', [path.join(root, 'tests', 'helpers', 'ensure-client.sh'), 'twine', 'twine'], { encoding: 'utf8', timeout: 300_000 });
  if (installer.status === 0) return null;
  return `twine is not installed and could not be (${installer.stderr.trim() || `status ${installer.status}`}); its multipart upload is sent over raw HTTP instead`;
}

/** A minimal wheel (a zip with the package and its dist-info), written with Python's zipfile; `padding` random bytes make it large. */
async function buildWheel(dir: string, name: string, version: string, padding = 0): Promise<string> {
  const file = path.join(dir, `${name}-${version}-py3-none-any.whl`);
  const script = `
import os, zipfile, sys
name, version, out, padding = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
info = f"{name}-{version}.dist-info"
with zipfile.ZipFile(out, "w") as z:
    z.writestr(f"{name}/__init__.py", f"VERSION = {version!r}\\n")
    if padding:
        z.writestr(f"{name}/padding.bin", os.urandom(padding))
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\nSummary: hello from hearth\\nRequires-Python: >=3.8\\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: hearth-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{info}/RECORD", f"{name}/__init__.py,,\\n{info}/METADATA,,\\n{info}/WHEEL,,\\n{info}/RECORD,,\\n")
`;
  const made = await runClient(python!, ['-c', script, name, version, file, String(padding)], { cwd: dir, env: {} });
  if (made.code !== 0) throw new Error(made.stderr);
  return file;
}

/** The form twine sends for one file. */
function twineForm(name: string, version: string, content: Buffer, filename: string, sha256 = createHash('sha256').update(content).digest('hex')): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries({ ':action': 'file_upload', protocol_version: '1', metadata_version: '2.1', name, version, filetype: 'bdist_wheel', pyversion: 'py3', summary: 'hello from hearth', requires_python: '>=3.8', sha256_digest: sha256, md5_digest: createHash('md5').update(content).digest('hex') })) {
    form.append(key, value);
  }
  form.append('content', new Blob([new Uint8Array(content)]), filename);
  return form;
}

async function upload(hearth: TestHearth, auth: string | undefined, form: FormData): Promise<Response> {
  return fetch(`${hearth.rootUrl}api/packages/alice/pypi`, { method: 'POST', headers: auth ? { Authorization: auth } : {}, body: form });
}

test('a wheel uploaded as twine sends it is installed by pip from the simple index', async (t) => {
  if (!python || pipMissing) {
    t.log(`skipped: ${pipMissing ?? 'python3 is not installed'}`);
    t.pass();
    return;
  }
  t.timeout(600_000, 'pip is slow on a loaded machine, and twine may be installed first');
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-pypi-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const wheel = await buildWheel(home, 'hearth_hello', '1.0.0');
  const noTwine = twineMissing();
  if (noTwine) {
    t.log(noTwine);
    t.is((await upload(hearth, alice.basic, twineForm('hearth_hello', '1.0.0', readFileSync(wheel), path.basename(wheel)))).status, 201);
  } else {
    const twine = (file: string) => runClient('twine', ['upload', '--non-interactive', '--disable-progress-bar', '--repository-url', `${hearth.rootUrl}api/packages/alice/pypi`, '-u', 'alice', '-p', alice.token, file], { cwd: home, env: { HOME: home } });
    const uploaded = await twine(wheel);
    t.is(uploaded.code, 0, uploaded.stderr + uploaded.stdout);
    // the same file again is refused, and twine says why
    const again = await twine(wheel);
    t.not(again.code, 0);
    t.regex(again.stderr + again.stdout, /409/);
  }

  const index = await (await fetch(`${hearth.rootUrl}api/packages/alice/pypi/simple/Hearth.Hello`)).text();
  const sha256 = createHash('sha256').update(readFileSync(wheel)).digest('hex');
  t.true(index.includes(`/api/packages/alice/pypi/files/hearth-hello/1.0.0/hearth_hello-1.0.0-py3-none-any.whl#sha256=${sha256}`), index);
  t.true(index.includes('data-requires-python="&#62;=3.8"'));

  const target = path.join(home, 'site');
  const installed = await runClient(python, ['-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-deps', '--target', target,
    '--index-url', `${hearth.rootUrl}api/packages/alice/pypi/simple`, 'hearth-hello==1.0.0'], { cwd: home, env: { HOME: home, PIP_CONFIG_FILE: '/dev/null' }, timeoutMs: 300_000 });
  t.is(installed.code, 0, installed.stderr);
  t.true(existsSync(path.join(target, 'hearth_hello', '__init__.py')));
  t.is(readFileSync(path.join(target, 'hearth_hello', '__init__.py'), 'utf8'), "VERSION = '1.0.0'\n");
});

test('PyPI refusals (credentials, names, hashes, duplicates, limits) store nothing', async (t) => {
  const hearth = await startHearth(t, { HEARTH__packages__LIMIT_SIZE_PYPI: '100' });
  const alice = await hearth.createUser('alice');
  const content = Buffer.from('wheel bytes');
  const empty = await stored(hearth);
  const anonymous = await upload(hearth, undefined, twineForm('pkg', '1.0', content, 'pkg-1.0-py3-none-any.whl'));
  t.is(anonymous.status, 401);
  t.truthy(anonymous.headers.get('www-authenticate'));
  t.is((await upload(hearth, alice.basic, twineForm('-bad-', '1.0', content, 'pkg-1.0-py3-none-any.whl'))).status, 400);
  t.is((await upload(hearth, alice.basic, twineForm('pkg', 'not a version', content, 'pkg-1.0-py3-none-any.whl'))).status, 400);
  t.is((await upload(hearth, alice.basic, twineForm('pkg', '1.0', content, 'pkg.exe'))).status, 400);
  const mismatch = await upload(hearth, alice.basic, twineForm('pkg', '1.0', content, 'pkg-1.0-py3-none-any.whl', '0'.repeat(64)));
  t.is(mismatch.status, 400);
  t.regex(await mismatch.text(), /sha256/);
  t.is((await upload(hearth, alice.basic, twineForm('pkg', '1.0', Buffer.alloc(200), 'pkg-1.0-py3-none-any.whl'))).status, 413);
  // a large file, sent whole before the client reads (as twine's requests does): the 413 arrives, the connection stays
  const boundary = 'hearthboundary';
  const preamble = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\npkg\r\n--${boundary}\r\n` +
    `Content-Disposition: form-data; name="content"; filename="pkg-1.0-py3-none-any.whl"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const fileBytes = 4 * 1024 * 1024;
  const raw = await rawExchange(
    hearth.rootUrl,
    `POST /api/packages/alice/pypi/ HTTP/1.1\r\nHost: hearth\r\nAuthorization: ${alice.basic}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${preamble.length + fileBytes}\r\n\r\n${preamble}`,
    fileBytes,
    `GET /api/packages/alice/pypi/simple/pkg HTTP/1.1\r\nHost: hearth\r\nConnection: close\r\n\r\n`,
  );
  t.is(raw.error, null);
  t.regex(raw.text, /^HTTP\/1\.1 413 [^]*maximum allowed package type size exceeded[^]*HTTP\/1\.1 404 /);
  // twine sends it all before it reads the answer: it reports the 413, not a reset connection
  if (python && !twineMissing()) {
    const home = mkdtempSync(path.join(os.tmpdir(), 'hearth-pypi-'));
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    const wheel = await buildWheel(home, 'big', '1.0.0', 4 * 1024 * 1024);
    const twine = await runClient('twine', ['upload', '--non-interactive', '--disable-progress-bar', '--repository-url', `${hearth.rootUrl}api/packages/alice/pypi`, '-u', 'alice', '-p', alice.token, wheel], { cwd: home, env: { HOME: home } });
    t.not(twine.code, 0);
    t.regex(twine.stderr + twine.stdout, /HTTPError: 413 /);
  }
  t.deepEqual(await stored(hearth), empty);

  t.is((await upload(hearth, alice.basic, twineForm('pkg', '1.0', content, 'pkg-1.0-py3-none-any.whl'))).status, 201);
  t.is((await upload(hearth, alice.basic, twineForm('pkg', '1.0', content, 'pkg-1.0-py3-none-any.whl'))).status, 409);
  t.is((await upload(hearth, alice.basic, twineForm('pkg', '1.0', Buffer.from('sdist'), 'pkg-1.0.tar.gz'))).status, 201);
  const state = await stored(hearth);
  t.like(state, { packages: 1, versions: 1, files: 2, blobs: 2 });
  t.is(state.blobFiles.length, 2);
  t.is((await fetch(`${hearth.rootUrl}api/packages/alice/pypi/simple/nothing`)).status, 404);
});
