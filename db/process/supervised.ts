import { readConfig, type Config } from './config.js';
import { StartupError, describeStartupFailure } from './startup.js';

/**
 * The child side of the launcher's protocol, for the web, worker and database processes. Under `npm start`
 * a process has an IPC channel to the launcher: it reports `ready` or why it failed, and it stops when the
 * launcher asks (SIGTERM) or disappears (the channel closes, as after a kill -9 of the launcher). Run on its
 * own (a Procfile line), it prints the same one-line reasons and stops on SIGTERM/SIGINT.
 */
export type LauncherMessage = { hearth: 'ready'; url?: string } | { hearth: 'failed'; message: string } | { hearth: 'need-database' };

/** What the launcher tells a child: the embedded database's address, once it is up. */
export type LauncherOrder = { hearth: 'database'; url: string };

/** Set by the launcher on a web or worker process it starts while the embedded database is still starting. */
export const databaseFromLauncher = 'HEARTH_DATABASE_FROM_LAUNCHER';

export const underLauncher = (): boolean => typeof process.send === 'function';

export function tellLauncher(message: LauncherMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send && process.connected) process.send(message, undefined, {}, () => resolve());
    else resolve();
  });
}

/** The configuration, with its warnings printed once: by the launcher when there is one, else here. */
export function configForProcess(env: NodeJS.ProcessEnv = process.env): Config {
  const { config, warnings } = readConfig(env);
  if (!underLauncher()) for (const warning of warnings) console.error(`hearth: warning: ${warning}`);
  return config;
}

/**
 * The database to open: DATABASE_URL, or, for a process the launcher started beside the embedded database (so its
 * modules load while PostgreSQL starts), the address the launcher sends once the database is ready.
 */
export async function databaseUrlOf(config: Config): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  if (!underLauncher() || process.env[databaseFromLauncher] !== '1') {
    throw new StartupError('DATABASE_URL is not set (npm start sets it for the embedded database)');
  }
  const url = new Promise<string>((resolve) => {
    const listen = (order: LauncherOrder): void => {
      if (order?.hearth !== 'database') return;
      process.off('message', listen);
      process.env.DATABASE_URL = order.url;
      resolve(order.url);
    };
    process.on('message', listen);
  });
  await tellLauncher({ hearth: 'need-database' });
  return url;
}

/** Calls `stop` once, on SIGTERM, SIGINT or the launcher going away. */
export function onStopRequest(stop: (reason: string) => void): void {
  let asked = false;
  const once = (reason: string): void => {
    if (asked) return;
    asked = true;
    stop(reason);
  };
  process.on('SIGTERM', () => once('SIGTERM'));
  process.on('SIGINT', () => once('SIGINT'));
  process.on('disconnect', () => once('launcher gone'));
}

/** Runs a process's main; an expected failure is one line (to the launcher, or stderr), a bug keeps its stack. */
export function runProcess(name: string, main: () => Promise<void>, databaseUrl = (): string | undefined => process.env.DATABASE_URL): void {
  main().catch(async (error: unknown) => {
    const line = describeStartupFailure(error, databaseUrl());
    if (line !== undefined && underLauncher()) await tellLauncher({ hearth: 'failed', message: line });
    else if (line !== undefined) console.error(`hearth ${name}: cannot start: ${line}`);
    else {
      console.error(error);
      await tellLauncher({ hearth: 'failed', message: `the ${name} process failed (the error is above)` });
    }
    process.exit(1);
  });
}
