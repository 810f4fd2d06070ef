import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { inTx } from '../../db/data-source.js';
import { gitEnv, runGit } from '../../db/git/run.js';
import { judgePush, pushedPathsRefusal, type RefUpdate } from '../../db/models/code/branch-protection.js';
import { recordRefUpdates } from '../../db/models/code/ref-updates.js';
import type { Deps } from '../deps.js';
import { answerPathChecks, fastForwardOnlyVariable, installHooks } from './pre-receive-hook.js';
import { readCommandList, refusalResponse, ReportReader, sidebandSize, type PushRequest } from './push-commands.js';
import type { GitTarget } from './target.js';

/** The most a push's command list may weigh before its pack (about 50,000 ref updates). */
const commandListLimit = 8 * 1024 * 1024;

/** One git process of a transfer: its arguments, environment, and bytes already read from the input. */
export interface GitCall {
  args: string[];
  dir: string;
  env: Record<string, string>;
  prefix?: Buffer;
  onOutput?: (chunk: Buffer) => void;
  /** Where git's standard error goes (SSH hands it to the client); logged otherwise. */
  stderr?: Writable;
}

/**
 * Runs git with the prefix and then the rest of `input` on its stdin and its stdout streamed into `output` (left
 * open for the caller to end). Resolves with git's exit code; an output that closes early stops git.
 */
export function runStreaming(deps: Deps, call: GitCall, input: Readable, output: Writable): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', call.args, { cwd: call.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...gitEnv, ...call.env } });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => {
      if (call.stderr) call.stderr.write(chunk);
      else stderr.push(chunk);
    });
    child.stdin.on('error', () => undefined);
    input.on('error', () => child.kill());
    output.on('close', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    if (call.onOutput) child.stdout.on('data', call.onOutput);
    child.stdout.pipe(output, { end: false });
    if (call.prefix) child.stdin.write(call.prefix);
    input.pipe(child.stdin);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0 && !call.stderr) {
        deps.log.warn({ args: call.args, code, signal, stderr: Buffer.concat(stderr).toString('utf8').slice(0, 2000) }, 'git exited with an error');
      }
      resolve(code ?? 1);
    });
  });
}

/** The hooks directory receive-pack runs with, written once per process. */
export function hooksInstaller(deps: Deps): () => Promise<string> {
  let hooks: Promise<string> | null = null;
  return () => {
    hooks ??= installHooks(path.join(deps.config.dataDir, 'hooks')).catch((error: unknown) => {
      hooks = null;
      throw error;
    });
    return hooks;
  };
}

/**
 * The one way a push is taken, over HTTP and SSH: the command list is read before git sees the pack, branch
 * protection judges it (a refusal answers every ref with its reason and git never runs), git receives the pack in
 * stateless-RPC mode (force pushes to protected branches refused by the pre-receive hook), and what it accepted is
 * recorded with recordRefUpdates before the client hears the end. `output` is left open. A wiki has no branch records,
 * protection or branch sync: git takes the push as it comes.
 */
export async function receivePush(deps: Deps, target: GitTarget, input: Readable, output: Writable, hooksDir: () => Promise<string>): Promise<void> {
  if (target.wiki) {
    await runStreaming(deps, { args: ['receive-pack', '--stateless-rpc', target.dir], dir: target.dir, env: {} }, input, output);
    return;
  }
  const { head, request } = await readCommandList(input, commandListLimit);
  const pusher = target.pusher!;
  if (request.commands.length === 0) {
    // nothing to update (git sends a lone flush when everything is up to date)
    input.resume();
    return;
  }
  const verdict = await judgePush(deps.db, target.repo, pusher, target.mode, request.commands);
  // the refusals the pushed paths may lift are decided by the hook's question instead
  for (const ref of verdict.fileChecks.keys()) verdict.refusals.delete(ref);
  if (verdict.refusals.size > 0) {
    input.resume();
    await finished(input).catch(() => undefined);
    output.write(refusalResponse(request, verdict.refusals));
    return;
  }
  const report = new ReportReader(sidebandSize(request.capabilities) > 0);
  const pathChecks = verdict.fileChecks.size > 0
    ? await answerPathChecks([...verdict.fileChecks.keys()], (ref, paths) => pushedPathsRefusal(verdict.fileChecks.get(ref)!, paths))
    : null;
  try {
    await runStreaming(deps, {
      args: ['-c', `core.hooksPath=${await hooksDir()}`, 'receive-pack', '--stateless-rpc', target.dir],
      dir: target.dir,
      env: { [fastForwardOnlyVariable]: verdict.fastForwardOnly.join(' '), ...pathChecks?.env },
      prefix: head,
      onOutput: (chunk) => report.feed(chunk),
    }, input, output);
  } finally {
    await pathChecks?.stop();
  }
  const accepted = report.reported ? request.commands.filter((c) => report.updated.has(c.ref)) : await commandsNowOnDisk(target.dir, request);
  if (accepted.length > 0) {
    // The client hears the end of its push only once the sync is queued, so what it pushed is never lost to the database.
    await inTx(deps, (tx) => recordRefUpdates(tx, deps.git.open(target.repo), target.repo, pusher.user, accepted)).catch((error: unknown) => {
      deps.log.error({ err: error, repoId: target.repo.id }, 'an accepted push could not be queued for branch sync');
    });
  }
}

/** A push over a connection that stays open (SSH): receive-pack's ref advertisement first, then the push as over HTTP. */
export async function receivePushSession(deps: Deps, target: GitTarget, input: Readable, output: Writable, hooksDir: () => Promise<string>): Promise<void> {
  const advertised = await runGit(['receive-pack', '--stateless-rpc', '--advertise-refs', target.dir], { cwd: target.dir });
  if (advertised.code !== 0) throw new Error(`git receive-pack --advertise-refs failed: ${advertised.stderr.trim()}`);
  output.write(advertised.stdout);
  await receivePush(deps, target, input, output, hooksDir);
}

/** Without a report-status from git, the commands whose ref now holds the new value are the accepted ones. */
async function commandsNowOnDisk(dir: string, request: PushRequest): Promise<RefUpdate[]> {
  if (request.commands.length === 0) return [];
  const listed = await runGit(['for-each-ref', '--format=%(refname) %(objectname)', '--', ...request.commands.map((c) => c.ref)], { cwd: dir });
  const values = new Map(listed.stdout.toString('utf8').split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
  return request.commands.filter((c) => (values.get(c.ref) ?? '0'.repeat(c.newSha.length)) === c.newSha);
}
