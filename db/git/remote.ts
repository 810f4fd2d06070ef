import { isIP } from 'node:net';
import type { PinnedAddress, RemoteCredentials } from '../net/outbound-targets.js';
import { readHeadAndTagRefs } from './refs.js';
import { gitOk, runGit, type GitResult } from './run.js';

/**
 * A remote repository as git reaches it: an http(s) URL without credentials (or a local path), the credentials
 * to send, and the address a checked connection is pinned to. Credentials travel in git's environment
 * (GIT_CONFIG_KEY_n: an Authorization header scoped to the remote's origin), never in its arguments, its
 * configuration on disk or a URL; redirects are not followed, so a remote cannot send git elsewhere.
 */
export interface RemoteAccess {
  url: string;
  credentials: RemoteCredentials | null;
  pin: PinnedAddress | null;
}

/** Refs a mirror copies: branches and tags, forced, so a rewritten branch or a moved tag follows the source. */
const mirrorRefspecs = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'];

/**
 * git's options for a remote: no redirects, the pinned address, and curl's low-speed limit (below 1 byte a second for
 * half a minute past the timeout ends the transfer), so that a git left running by a worker that was killed still
 * ends by itself from a silent remote; the timeout itself is the caller's (the process group is killed).
 */
function remoteOptions(remote: RemoteAccess, timeoutMs: number): { args: string[]; env: Record<string, string> } {
  const args = ['-c', 'http.followRedirects=false', '-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${Math.ceil(timeoutMs / 1000) + 30}`];
  // an address literal is connected to as it is (no lookup to pin; and curl cannot read an IPv6 host in --resolve)
  if (remote.pin && !isIP(remote.pin.host)) {
    const address = isIP(remote.pin.address) === 6 ? `[${remote.pin.address}]` : remote.pin.address;
    args.push('-c', `http.curloptResolve=${remote.pin.host}:${remote.pin.port}:${address}`);
  }
  const env: Record<string, string> = {};
  if (remote.credentials && /^https?:/i.test(remote.url)) {
    const origin = new URL(remote.url).origin;
    const basic = Buffer.from(`${remote.credentials.username}:${remote.credentials.password}`).toString('base64');
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `http.${origin}/.extraHeader`, GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` });
  }
  return { args, env };
}

/**
 * git's message without anything that could carry a secret: the first lines of stderr, URLs stripped of userinfo; a
 * command killed at its timeout says so.
 */
function failure(verb: string, result: GitResult, timeoutMs: number): Error {
  if (result.timedOut) return new Error(`git ${verb} timed out after ${Math.round(timeoutMs / 1000)} s`);
  const text = result.stderr.replace(/(\w+:\/\/)[^/@\s]*@/g, '$1').trim().split('\n').slice(-3).join(' ');
  return new Error(`git ${verb} failed: ${text}`);
}

/** The heads of the remote's pull requests, as Gitea and Hearth keep them, for a migration that imports pull requests. */
const pullHeadRefspec = '+refs/pull/*/head:refs/pull/*/head';

/**
 * Fetches every branch and tag of the remote into `dir` (and the heads of its pull requests with `pullHeads`); with
 * `prune`, refs the remote no longer has go too.
 */
export async function fetchMirrorRefs(dir: string, remote: RemoteAccess, prune: boolean, timeoutMs: number, pullHeads = false): Promise<void> {
  const { args, env } = remoteOptions(remote, timeoutMs);
  const refspecs = pullHeads ? [...mirrorRefspecs, pullHeadRefspec] : mirrorRefspecs;
  const result = await runGit(
    [...args, 'fetch', '--quiet', '--no-write-fetch-head', ...(prune ? ['--prune'] : []), remote.url, ...refspecs],
    { cwd: dir, env, timeoutMs },
  );
  if (result.code !== 0) throw failure('fetch', result, timeoutMs);
}

/** Pushes every branch and tag to the remote with --mirror semantics: forced, and refs gone here are deleted there. */
export async function pushMirrorRefs(dir: string, remote: RemoteAccess, timeoutMs: number): Promise<void> {
  const { args, env } = remoteOptions(remote, timeoutMs);
  const result = await runGit([...args, 'push', '--quiet', '--force', '--prune', remote.url, ...mirrorRefspecs], { cwd: dir, env, timeoutMs });
  if (result.code !== 0) throw failure('push', result, timeoutMs);
}

/** The branch the remote's HEAD names, or null (an empty remote, or HEAD detached). */
export async function readRemoteHeadBranch(dir: string, remote: RemoteAccess, timeoutMs: number): Promise<string | null> {
  const { args, env } = remoteOptions(remote, timeoutMs);
  const result = await runGit([...args, 'ls-remote', '--symref', remote.url, 'HEAD'], { cwd: dir, env, timeoutMs });
  if (result.code !== 0) throw failure('ls-remote', result, timeoutMs);
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(result.stdout.toString('utf8'));
  return match ? match[1] : null;
}

/** Every branch and tag with the object it points at, to compare before and after a fetch: read here, else by git. */
export async function readMirrorRefs(dir: string): Promise<Map<string, string>> {
  const read = readHeadAndTagRefs(dir);
  if (read) return read;
  const out = await gitOk(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/'], { cwd: dir });
  const refs = new Map<string, string>();
  for (const line of out.split('\n').filter(Boolean)) {
    const space = line.indexOf(' ');
    refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}
