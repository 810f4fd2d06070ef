import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { runClient } from '../helpers/clients.js';

/**
 * `npm install` of a package with many versions from Hearth's npm registry, beside `npm install` of the same
 * version's tarball from a file (npm's own cost, with no registry), each with an empty cache, in the same run.
 * The packument (every version's manifest) is what a registry adds, so its request is timed on its own too.
 */
export interface NpmInstallFigure {
  versions: number;
  /** Median of three installs from Hearth, each with an empty cache and no lock file. */
  seconds: number;
  /** Median of three installs of the same tarball from a file, each with an empty cache. */
  baselineSeconds: number;
  /** The baseline's time over Hearth's: 1 would mean the registry costs nothing. */
  ratio: number;
  /** Median of ten requests of the packument, as npm asks for it. */
  packumentMs: number;
  packumentKiB: number;
}

export interface NpmTarget {
  /** http://127.0.0.1:PORT/api/packages/OWNER/npm/ */
  registry: string;
  token: string;
}

const packageName = 'bench-many';
const readme = `# ${packageName}\n\n${'A package published many times to measure installs against a long packument. '.repeat(12)}\n`;

async function tarball(version: string): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name: 'package/package.json' }, JSON.stringify({ name: packageName, version, description: 'one of many versions', main: 'index.js', license: 'MIT' }));
  pack.entry({ name: 'package/index.js' }, `module.exports = ${JSON.stringify(version)};\n`);
  pack.entry({ name: 'package/README.md' }, readme);
  pack.finalize();
  return gzipSync(await buffer(pack));
}

/** Publishes one version through the registry API, as `npm publish` sends it. */
async function publish(target: NpmTarget, version: string, bytes: Buffer): Promise<void> {
  const filename = `${packageName}-${version}.tgz`;
  const manifest = {
    name: packageName, version, description: 'one of many versions', main: 'index.js', license: 'MIT', _id: `${packageName}@${version}`,
    dist: {
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`, shasum: createHash('sha1').update(bytes).digest('hex'),
      tarball: `${target.registry}${packageName}/-/${filename}`,
    },
  };
  const response = await fetch(`${target.registry}${packageName}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      _id: packageName, name: packageName, description: manifest.description, readme, 'dist-tags': { latest: version }, versions: { [version]: manifest },
      _attachments: { [filename]: { content_type: 'application/octet-stream', data: bytes.toString('base64'), length: bytes.length } },
    }),
  });
  if (response.status !== 201) throw new Error(`publishing ${version} answered ${response.status}: ${await response.text()}`);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureNpmInstall(work: string, target: NpmTarget, versions = 200): Promise<NpmInstallFigure> {
  mkdirSync(work, { recursive: true });
  try {
    let last: Buffer = Buffer.alloc(0);
    let lastVersion = '';
    for (let i = 0; i < versions; i++) {
      lastVersion = `1.${Math.floor(i / 100)}.${i % 100}`;
      last = await tarball(lastVersion);
      await publish(target, lastVersion, last);
    }
    const file = path.join(work, `${packageName}-${lastVersion}.tgz`);
    writeFileSync(file, last);

    const install = async (spec: string): Promise<number> => {
      const home = mkdtempSync(path.join(work, 'home-'));
      const project = path.join(home, 'app');
      mkdirSync(project);
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
      writeFileSync(path.join(home, '.npmrc'), `registry=${target.registry}\n`);
      const env = {
        HOME: home, npm_config_userconfig: path.join(home, '.npmrc'), npm_config_cache: path.join(home, 'cache'),
        npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_ignore_scripts: 'true',
      };
      const started = performance.now();
      const run = await runClient('npm', ['install', spec], { cwd: project, env, timeoutMs: 300_000 });
      const seconds = (performance.now() - started) / 1000;
      if (run.code !== 0) throw new Error(`npm install ${spec} failed: ${run.stderr}`);
      const installed = JSON.parse(readFileSync(path.join(project, 'node_modules', packageName, 'package.json'), 'utf8')) as { version: string };
      if (installed.version !== lastVersion) throw new Error(`npm installed ${installed.version}, not ${lastVersion}`);
      rmSync(home, { recursive: true, force: true });
      return seconds;
    };
    // turn about, so both sides see the same moments of a busy machine
    const fromHearth: number[] = [];
    const fromFile: number[] = [];
    for (let i = 0; i < 3; i++) {
      fromHearth.push(await install(packageName));
      fromFile.push(await install(file));
    }

    const packument: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const response = await fetch(`${target.registry}${packageName}`, { headers: { Accept: 'application/json' } });
      const body = Buffer.from(await response.arrayBuffer());
      packument.push(performance.now() - started);
      const listed = Object.keys((JSON.parse(body.toString('utf8')) as { versions: Record<string, unknown> }).versions).length;
      if (response.status !== 200 || listed !== versions) throw new Error(`the packument answered ${response.status} with ${listed} versions`);
      bytes = body.length;
    }
    const seconds = median(fromHearth);
    const baselineSeconds = median(fromFile);
    return { versions, seconds, baselineSeconds, ratio: baselineSeconds / seconds, packumentMs: median(packument), packumentKiB: Math.round(bytes / 1024) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
