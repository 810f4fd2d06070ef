import net, { type Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import ssh2, { type AuthContext, type Connection, type ServerChannel } from 'ssh2';
import { HttpError } from '../../db/errors.js';
import { fingerprintOf, findKeyHolder, type KeyHolder } from '../../db/models/users/ssh-keys.js';
import type { Deps } from '../deps.js';
import { hooksInstaller, receivePushSession, runStreaming } from '../git/receive.js';
import { resolveGitTarget, type GitCaller, type GitService } from '../git/target.js';
import { CommandRefusal, parseGitCommand } from './command.js';
import { ensureHostKeys } from './host-keys.js';

/** What a session says about itself in its log line (never key material). */
interface SessionLog {
  fingerprint: string;
  user: string;
  repo?: string;
  command?: string;
  bytesIn: number;
  bytesOut: number;
  exit?: number;
}

/** A finished git transfer, shaped as git over HTTP reports one, for metrics to count both in one place. */
export interface GitTransfer {
  service: GitService;
  protocol: 'ssh';
  /** Bytes both ways on the channel. */
  bytes: number;
  ms: number;
}

export interface SshServerHooks {
  /** Called once for every git command that ran (its repository resolved), whatever git's exit status. */
  onTransfer?: (transfer: GitTransfer) => void;
}

export interface SshServer {
  listen(): Promise<number>;
  /** Stops accepting; resolves once running transfers have finished. */
  drain(): Promise<void>;
  /** Open TCP connections (authenticated or not) and running git commands. */
  load(): { connections: number; transfers: number };
}

/**
 * Git over SSH (ssh2): public-key authentication with users' keys and deploy keys (found by fingerprint), then
 * `git-upload-pack`, `git-receive-pack` or `git-upload-archive` for one repository or wiki, with the same access
 * computation and push path as git over HTTP (`api/git/target.ts`, `api/git/receive.ts`). Shells, other commands,
 * forwarding and subsystems get one line and a non-zero exit.
 *
 * Sockets are accepted here and handed to ssh2 (`injectSocket`), so the session cap and the login grace time hold from
 * the TCP connection on, before the client has said a word of SSH.
 */
export function createSshServer(deps: Deps, hooks: SshServerHooks = {}): SshServer {
  const settings = deps.config.ssh;
  const hooksDir = hooksInstaller(deps);
  const sockets = new Map<string, Socket>();
  const clients = new Set<Connection>();
  const perKey = new Map<string, number>();
  let transfers = 0;
  let draining = false;
  let drained: (() => void) | null = null;
  const settle = (): void => {
    if (draining && transfers === 0) {
      for (const client of clients) client.end();
      for (const socket of sockets.values()) socket.destroy();
      drained?.();
    }
  };
  const addressOf = (address: string | undefined, port: number | undefined): string => `${address}:${port}`;

  const listener = net.createServer((socket) => {
    if (draining || sockets.size >= settings.maxSessions) {
      socket.destroy();
      return;
    }
    const address = addressOf(socket.remoteAddress, socket.remotePort);
    sockets.set(address, socket);
    const grace = setTimeout(() => socket.destroy(), settings.loginGraceSeconds * 1000);
    graceTimers.set(socket, grace);
    socket.once('close', () => {
      clearTimeout(grace);
      sockets.delete(address);
    });
    socket.on('error', () => undefined);
    socket.setNoDelay(true);
    gatherWrites(socket);
    server.injectSocket(socket);
  });
  const graceTimers = new WeakMap<Socket, NodeJS.Timeout>();

  const server = new ssh2.Server({
    hostKeys: ensureHostKeys(settings.hostKeys),
    ident: 'Hearth',
    algorithms: { cipher: settings.ciphers, kex: settings.keyExchanges, hmac: settings.macs } as ssh2.Algorithms,
  }, (client, info) => {
    const socket = sockets.get(addressOf(info.ip, info.port));
    client.on('error', () => undefined);
    if (!socket || draining) {
      client.end();
      return;
    }
    clients.add(client);
    let holder: KeyHolder | null = null;
    let fingerprint = '';
    let running = 0;
    let lastActive = Date.now();
    let idle: NodeJS.Timeout | undefined;
    const gone = new Promise<void>((resolve) => client.once('close', () => resolve()));
    const touch = (): void => {
      lastActive = Date.now();
    };
    // One timer per connection, re-armed for what is left rather than reset on every packet.
    const watchIdle = (wait: number): void => {
      idle = setTimeout(() => {
        const quiet = Date.now() - lastActive;
        if (running === 0 && quiet >= settings.idleTimeoutSeconds * 1000) client.end();
        else watchIdle(Math.max(settings.idleTimeoutSeconds * 1000 - quiet, 1000));
      }, wait);
    };
    client.on('close', () => {
      clearTimeout(idle);
      clients.delete(client);
      if (holder) {
        const left = (perKey.get(fingerprint) ?? 1) - 1;
        if (left > 0) perKey.set(fingerprint, left);
        else perKey.delete(fingerprint);
      }
    });
    client.on('authentication', (ctx: AuthContext) => {
      void authenticate(ctx).then((found) => {
        if (!found) return ctx.reject(['publickey']);
        if (ctx.method === 'publickey' && ctx.signature) {
          if ((perKey.get(fingerprint) ?? 0) >= settings.maxSessionsPerKey) {
            deps.log.info({ fingerprint }, 'ssh connection refused: the key has its most sessions at once');
            return ctx.reject(['publickey']);
          }
          holder = found;
          perKey.set(fingerprint, (perKey.get(fingerprint) ?? 0) + 1);
        }
        ctx.accept();
      }, (error: unknown) => {
        deps.log.error({ err: error }, 'ssh authentication failed');
        ctx.reject(['publickey']);
      });
    });
    client.on('ready', () => {
      clearTimeout(graceTimers.get(socket));
      touch();
      if (settings.idleTimeoutSeconds > 0) watchIdle(settings.idleTimeoutSeconds * 1000);
      client.on('session', (accept) => {
        const session = accept();
        const env: Record<string, string> = {};
        session.on('env', (ok, no, info) => {
          if (info.key === 'GIT_PROTOCOL' && /^[\w.=:,-]{1,256}$/.test(info.val)) env.GIT_PROTOCOL = info.val;
          ok?.();
        });
        session.on('pty', (_ok, no) => no?.());
        session.on('window-change', (_ok, no) => no?.());
        session.on('shell', (ok) => refuse(ok(), greeting(holder!)));
        session.on('subsystem', (ok) => refuse(ok(), greeting(holder!)));
        session.on('exec', (ok, _no, info) => {
          const channel = ok();
          if (draining) return refuse(channel, 'Hearth: the server is shutting down, try again shortly');
          running++;
          transfers++;
          touch();
          void serve(channel, info.command, env, holder!, fingerprint, touch, gone).finally(() => {
            running--;
            transfers--;
            touch();
            settle();
          });
        });
      });
    });
    client.on('request', (_ok, no) => no?.());
    client.on('tcpip', (_ok, no) => no());
    client.on('openssh.streamlocal', (_ok, no) => no());

    /** The key's holder when it is known and may sign in (and, with a signature, the signature holds). */
    async function authenticate(ctx: AuthContext): Promise<KeyHolder | null> {
      if (ctx.method !== 'publickey' || ctx.username !== settings.user) return null;
      fingerprint = fingerprintOf(ctx.key.data);
      const found = await findKeyHolder(deps.db, fingerprint);
      if (!found) return null;
      if (found.kind === 'user' && (!found.user.is_active || found.user.prohibit_login)) {
        deps.log.info({ fingerprint, user: found.user.name }, 'ssh key of a user who may not sign in refused');
        return null;
      }
      if (!ctx.signature) return found;
      const key = ssh2.utils.parseKey(ctx.key.data);
      if (key instanceof Error || !ctx.blob || key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return null;
      return found;
    }
  });

  /** One git command on one channel, logged when it ends. */
  async function serve(channel: ServerChannel, line: string, env: Record<string, string>, holder: KeyHolder, fingerprint: string, touch: () => void, gone: Promise<void>): Promise<void> {
    const started = Date.now();
    const log: SessionLog = { fingerprint, user: holder.kind === 'user' ? holder.user.name : `deploy-key-${holder.keyId}`, bytesIn: 0, bytesOut: 0 };
    const input = new Transform({
      transform(chunk: Buffer, _encoding, done: TransformCallback) {
        log.bytesIn += chunk.length;
        touch();
        done(null, chunk);
      },
    });
    channel.pipe(input);
    const write = channel.write.bind(channel) as (chunk: Buffer | string) => boolean;
    channel.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
      log.bytesOut += Buffer.byteLength(chunk);
      touch();
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof channel.write;
    let code = 1;
    let ran: GitService | null = null;
    try {
      const command = parseGitCommand(line);
      log.command = `git-${command.service}`;
      log.repo = `${command.owner}/${command.name}`;
      const caller: GitCaller = holder.kind === 'user' ? { user: holder.user } : { user: null, deployKeys: holder.deployKeys };
      const target = await resolveGitTarget(deps, caller, command.owner, command.name, command.service);
      ran = command.service;
      if (command.service === 'receive-pack') {
        await receivePushSession(deps, target, input, channel, hooksDir);
        code = 0;
      } else {
        const gitEnv = command.service === 'upload-pack' ? env : {};
        code = await runStreaming(deps, { args: [command.service, target.dir], dir: target.dir, env: gitEnv, stderr: channel.stderr }, input, channel);
      }
    } catch (error) {
      channel.stderr.write(`Hearth: ${messageOf(error)}\n`);
      if (!(error instanceof CommandRefusal) && !(error instanceof HttpError)) deps.log.error({ err: error }, 'ssh git command failed');
    }
    log.exit = code;
    channel.unpipe(input);
    const ms = Date.now() - started;
    deps.log.info({ ...log, durationMs: ms }, 'ssh session');
    if (ran) hooks.onTransfer?.({ service: ran, protocol: 'ssh', bytes: log.bytesIn + log.bytesOut, ms });
    if (!channel.destroyed) {
      // the command counts as running until the client has closed the channel (or the connection): a drain ends
      // connections only then
      const closed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        channel.once('close', done);
        void gone.then(done);
      });
      channel.exit(code);
      channel.end();
      await closed;
    }
  }

  return {
    listen: () => new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(settings.listenPort, settings.listenHost, () => {
        listener.off('error', reject);
        resolve((listener.address() as { port: number }).port);
      });
    }),
    drain: () => new Promise((resolve) => {
      draining = true;
      drained = resolve;
      listener.close();
      settle();
    }),
    load: () => ({ connections: sockets.size, transfers }),
  };
}

/**
 * ssh2 writes every packet in three or four pieces (length, payload, MAC): corked until the end of the tick, they
 * leave in one writev. Without this and with Nagle's algorithm off, each piece would be a TCP segment of its own;
 * with Nagle on, the handshake's small packets wait for delayed ACKs (tens of milliseconds per round trip).
 */
function gatherWrites(socket: Socket): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  }) as typeof socket.write;
}

/** The words a client is told; a missing and an invisible repository read the same. */
function messageOf(error: unknown): string {
  if (error instanceof CommandRefusal) return error.message;
  if (error instanceof HttpError) return error.status === 404 || error.status === 401 ? 'Repository does not exist or you do not have access' : error.message;
  return 'Internal Server Error';
}

/** Gitea's answer to a shell: who the key belongs to, and that there is no shell. */
function greeting(holder: KeyHolder): string {
  return holder.kind === 'user'
    ? `Hi there, ${holder.user.name}! You've successfully authenticated, but Hearth does not provide shell access.`
    : "Hi there! You've successfully authenticated with a deploy key, but Hearth does not provide shell access.";
}

function refuse(channel: ServerChannel, line: string): void {
  channel.stderr.write(`${line}\n`);
  channel.exit(1);
  channel.end();
}
