import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runClient } from '../helpers/clients.js';

/**
 * A large generic package file uploaded to and downloaded from Hearth with curl (the client Gitea documents for the
 * generic registry, and one that costs the shared CPUs little), beside writing and reading the same bytes on the same
 * disk in the same run, with the web process's memory sampled during each transfer.
 */
export interface PackageFigure {
  name: string;
  mib: number;
  seconds: number;
  baselineSeconds: number;
  /** Hearth's throughput as a share of the disk's: 0.5 means half as fast. */
  throughputRatio: number;
  /** How far the web process's RSS rose above its level before the transfer. */
  rssGrowthMiB: number;
}

export interface PackageTarget {
  /** http://127.0.0.1:PORT/api/packages/OWNER/generic */
  base: string;
  authorization: string;
  rss: () => number;
}

/** Samples `rss` every 20 ms while `work` runs; answers the work's seconds and the highest rise in MiB. */
async function watched(rss: () => number, work: () => Promise<void>): Promise<{ seconds: number; growth: number }> {
  const before = rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 20);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, growth: Math.max(0, Math.max(peak, rss()) - before) };
}

async function writeSource(file: string, mib: number): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) {
    chunk.fill(i % 251);
    chunk.writeUInt32LE(i, 0);
    await handle.write(chunk);
  }
  await handle.close();
}

const discard = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

export async function measurePackages(work: string, target: PackageTarget, mib = 100): Promise<PackageFigure[]> {
  mkdirSync(work, { recursive: true });
  const source = path.join(work, 'source.bin');
  await writeSource(source, mib);
  try {
    const disk = await watched(() => 0, () => pipeline(createReadStream(source), createWriteStream(path.join(work, 'copy.bin'), { flush: true })));
    const diskRead = await watched(() => 0, () => pipeline(createReadStream(path.join(work, 'copy.bin')), discard()));
    const bytes = mib * 1024 * 1024;
    const curl = async (url: string, args: string[], expected: string): Promise<void> => {
      const run = await runClient('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{size_upload} %{size_download}', '-H', `Authorization: ${target.authorization}`, ...args, url], { cwd: work, env: {} });
      if (run.code !== 0 || run.stdout !== expected) throw new Error(`curl ${args.join(' ')} answered ${run.stdout} ${run.stderr}`);
    };
    // one small file up and down first, so the figures are of the transfer, not of the first request's code
    const small = path.join(work, 'small.bin');
    await writeSource(small, 1);
    await curl(`${target.base}/warm/1.0.0/small.bin`, ['-T', small], `201 ${1024 * 1024} 0`);
    await curl(`${target.base}/warm/1.0.0/small.bin`, [], `200 0 ${1024 * 1024}`);
    const url = `${target.base}/big/1.0.0/big.bin`;
    const upload = await watched(target.rss, () => curl(url, ['-T', source], `201 ${bytes} 0`));
    const download = await watched(target.rss, () => curl(url, [], `200 0 ${bytes}`));
    const figure = (name: string, hearth: { seconds: number; growth: number }, baseline: { seconds: number }): PackageFigure => ({
      name, mib, seconds: hearth.seconds, baselineSeconds: baseline.seconds, throughputRatio: baseline.seconds / hearth.seconds, rssGrowthMiB: hearth.growth,
    });
    return [
      figure(`PUT generic package file (${mib} MiB) vs disk write`, upload, disk),
      figure(`GET generic package file (${mib} MiB) vs disk read`, download, diskRead),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
