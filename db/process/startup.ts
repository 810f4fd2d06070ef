import { createServer } from 'node:net';
import pg from 'pg';
import { HttpError } from '../errors.js';
import { ConfigError } from './config.js';

/** A start that cannot go on, for a reason the operator can fix; the message names the setting. */
export class StartupError extends Error {}

/**
 * One line for an expected start failure (a setting, a busy port, a database that cannot be reached);
 * undefined for anything else, which is a bug and keeps its stack.
 */
export function describeStartupFailure(error: unknown, databaseUrl?: string): string | undefined {
  if (error instanceof ConfigError || error instanceof StartupError) return error.message;
  if (error instanceof HttpError) return error.message;
  const code = errorCode(error);
  if (code && databaseUrl && (isNetworkCode(code) || isPostgresLoginCode(code))) return describeDatabaseError(error, databaseUrl);
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  if (error instanceof AggregateError && error.errors.length > 0) return errorCode(error.errors[0]);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const isNetworkCode = (code: string): boolean => networkCodes.has(code);
// invalid_authorization_specification, invalid_password, invalid_catalog_name, too_many_connections, cannot_connect_now
const isPostgresLoginCode = (code: string): boolean => ['28000', '28P01', '3D000', '53300', '57P03'].includes(code);

/** `host:port` of a URL, without its credentials. */
export function databaseAddress(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || 5432}`;
  } catch {
    return 'an address that is not a URL';
  }
}

function describeDatabaseError(error: unknown, databaseUrl: string): string {
  const where = databaseAddress(databaseUrl);
  const code = errorCode(error);
  const reason: Record<string, string> = {
    ECONNREFUSED: `nothing accepts connections at ${where} (connection refused)`,
    ENOTFOUND: `the host of ${where} is not known`,
    EAI_AGAIN: `the host of ${where} could not be looked up`,
    ETIMEDOUT: `${where} did not answer in time`,
    EHOSTUNREACH: `${where} cannot be reached`,
    ENETUNREACH: `${where} cannot be reached`,
    ECONNRESET: `${where} closed the connection; is it a PostgreSQL server?`,
  };
  const message = (code && reason[code]) ?? `PostgreSQL at ${where} refused: ${(error as Error).message}`;
  return `DATABASE_URL: ${message}`;
}

/** Connects once and asks for the server version: the URL names a reachable PostgreSQL that accepts the login. */
export async function checkDatabase(databaseUrl: string, timeoutMs = 5_000): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(databaseUrl);
  } catch {
    throw new StartupError('DATABASE_URL: not a URL (expected postgres://user:password@host:port/database)');
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) {
    throw new StartupError(`DATABASE_URL: expected a postgres:// URL, not ${parsed.protocol}//`);
  }
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs, application_name: 'hearth-start-check' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ version: string }>('SELECT version()');
    if (!/^PostgreSQL/.test(rows[0]?.version ?? '')) throw new StartupError(`DATABASE_URL: ${databaseAddress(databaseUrl)} is not PostgreSQL`);
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const known = describeStartupFailure(error, databaseUrl);
    if (known) throw new StartupError(known);
    // A timeout or a reply that is not PostgreSQL's protocol (an HTTP server, say)
    throw new StartupError(`DATABASE_URL: ${databaseAddress(databaseUrl)} does not answer as PostgreSQL (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Fails when another process already listens on a port a process is to use (PORT, or [server] SSH_LISTEN_PORT on its host). */
export async function checkPortFree(port: number, setting = 'PORT', host?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => reject(portError(port, error, setting)));
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

export function portError(port: number, error: NodeJS.ErrnoException, setting = 'PORT'): Error {
  if (error.code === 'EADDRINUSE') return new StartupError(`${setting}=${port}: another process already listens on this port; stop it or choose another ${setting}`);
  if (error.code === 'EACCES') return new StartupError(`${setting}=${port}: not allowed to listen on this port (ports below 1024 need privileges); choose another ${setting}`);
  return error;
}

/** A port nobody listens on now, for the embedded PostgreSQL. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
