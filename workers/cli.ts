import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import { kindStores, localBlobRoot } from '../db/blob-storage.js';
import { FileBlobStore } from '../db/blob-store.js';
import { openStore, withSecretKey, type OpenStore } from '../db/process/boot.js';
import type { Config } from '../db/process/config.js';
import { configForProcess } from '../db/process/supervised.js';
import { inTx, type Queryable } from '../db/data-source.js';
import { openDatabase } from '../db/process/database-url.js';
import { describeStartupFailure } from '../db/process/startup.js';
import { HttpError } from '../db/errors.js';
import { createLdapSource } from '../db/models/users/login-sources.js';
import { createToken } from '../db/models/users/tokens.js';
import { enrollTotp } from '../db/models/users/two-factor.js';
import { doctorCommand } from './doctor.js';
import { visibilities, type UserRow } from '../db/models/users/user-row.js';
import { createUser, editUser, getIndividualByName, searchUsers } from '../db/models/users/users.js';
import { migrateBlobs } from './storage-migrate.js';

/**
 * The admin command line: `npm run hearth -- admin user <command> [options]`. Each command runs the same
 * model operations as the API, in one transaction, against DATABASE_URL or the embedded database.
 */
const usage = `Usage: npm run hearth -- admin user <command> [options]
       npm run hearth -- doctor [--fix]
       npm run hearth -- admin auth add-ldap [options]
       npm run hearth -- storage migrate --to minio

Commands:
  doctor [--fix]   checks the database, queues, repositories and blobs; --fix repairs what it finds
                   (exits 1 while problems remain)
  auth add-ldap --name N --host H --port P --user-search-base B --user-filter F [--security-protocol unencrypted|ldaps|starttls]
      [--skip-tls-verify] [--not-active] [--bind-dn D --bind-password P] [--admin-filter F] [--restricted-filter F]
      [--username-attribute A] [--firstname-attribute A] [--surname-attribute A] [--email-attribute A]
      [--enable-groups --group-search-base B --group-member-attribute A --group-user-attribute A|dn] [--group-filter F]
      [--group-team-map JSON] [--group-team-map-removal]
  storage migrate --to minio
      copies every blob of $HEARTH_DATA_DIR/blobs into the object store of [storage] (as with STORAGE_TYPE = minio),
      verifying each copy by its SHA-256; blobs already there are not copied again
  create --username U --password P --email E [--admin] [--must-change-password]
  change-password --username U --password P [--must-change-password]
  list [--admin]
  generate-access-token --username U [--token-name N] [--scopes all,read:user] [--raw]
  enroll-totp --username U

With DATABASE_URL unset, the embedded PostgreSQL under $HEARTH_DATA_DIR/db is started for the command;
while \`npm start\` runs it, set DATABASE_URL instead.`;

type Values = Record<string, string | boolean | undefined>;
type OptionTypes = Record<string, { type: 'string' | 'boolean' }>;

interface Context {
  store: OpenStore;
  config: Config;
}

interface Command {
  options: OptionTypes;
  /** Returns what to print. */
  run(values: Values, context: Context): Promise<string>;
}

class UsageError extends Error {}

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;

const securityProtocols = { unencrypted: 0, ldaps: 1, starttls: 2 } as const;

/** Gitea's `admin auth add-ldap` (LDAP via BindDN), with its flag names. */
const authCommands: Record<string, Command> = {
  'add-ldap': {
    options: {
      name: text, host: text, port: text, 'security-protocol': text, 'skip-tls-verify': flag, 'not-active': flag, 'bind-dn': text,
      'bind-password': text, 'user-search-base': text, 'user-filter': text, 'admin-filter': text, 'restricted-filter': text,
      'username-attribute': text, 'firstname-attribute': text, 'surname-attribute': text, 'email-attribute': text,
      'enable-groups': flag, 'group-search-base': text, 'group-member-attribute': text, 'group-user-attribute': text,
      'group-filter': text, 'group-team-map': text, 'group-team-map-removal': flag,
    },
    async run(values, { store, config }) {
      const protocol = (optional(values, 'security-protocol') ?? 'unencrypted').toLowerCase();
      if (!(protocol in securityProtocols)) throw new UsageError('--security-protocol must be unencrypted, ldaps or starttls');
      const port = Number(required(values, 'port'));
      const source = await inTx(store, (tx) => createLdapSource(tx, {
        name: required(values, 'name'),
        isActive: values['not-active'] !== true,
        settings: {
          Host: required(values, 'host'), Port: port, SecurityProtocol: securityProtocols[protocol as keyof typeof securityProtocols],
          SkipVerify: values['skip-tls-verify'] === true, BindDN: optional(values, 'bind-dn') ?? '', BindPassword: optional(values, 'bind-password') ?? '',
          UserBase: required(values, 'user-search-base'), Filter: required(values, 'user-filter'),
          AdminFilter: optional(values, 'admin-filter') ?? '', RestrictedFilter: optional(values, 'restricted-filter') ?? '',
          AttributeUsername: optional(values, 'username-attribute') ?? '', AttributeName: optional(values, 'firstname-attribute') ?? '',
          AttributeSurname: optional(values, 'surname-attribute') ?? '', AttributeMail: optional(values, 'email-attribute') ?? 'mail',
          GroupsEnabled: values['enable-groups'] === true, GroupDN: optional(values, 'group-search-base') ?? '',
          GroupMemberUID: optional(values, 'group-member-attribute') ?? '', UserUID: optional(values, 'group-user-attribute') ?? '',
          GroupFilter: optional(values, 'group-filter') ?? '', GroupTeamMap: optional(values, 'group-team-map') ?? '',
          GroupTeamMapRemoval: values['group-team-map-removal'] === true,
        },
      }, config.security.secretKey));
      return `Login source '${source.name}' (id ${source.id}) has been successfully added!`;
    },
  },
};

const commands: Record<string, Command> = {
  create: {
    options: { username: text, password: text, email: text, admin: flag, 'must-change-password': flag },
    async run(values, { store, config }) {
      const user = await inTx(store, (tx) =>
        createUser(
          tx,
          {
            username: required(values, 'username'),
            password: required(values, 'password'),
            email: required(values, 'email'),
            is_admin: values.admin === true,
            must_change_password: values['must-change-password'] === true,
          },
          { passwordAlgo: config.security.passwordHashAlgo },
        ),
      );
      return `New user '${user.name}' has been successfully created!`;
    },
  },
  'change-password': {
    options: { username: text, password: text, 'must-change-password': flag },
    async run(values, { store, config }) {
      // Hearth has no page where a user could change it themselves, so a new password clears the demand unless asked to keep it.
      const edit = { password: required(values, 'password'), must_change_password: values['must-change-password'] === true };
      const user = await inTx(store, async (tx) =>
        editUser(tx, await getIndividualByName(tx, required(values, 'username')), edit, config.security.passwordHashAlgo),
      );
      return `${user.name}'s password has been successfully updated!`;
    },
  },
  list: {
    options: { admin: flag },
    async run(values, { store }) {
      const users = (await allUsers(store.db)).filter((user) => values.admin !== true || user.is_admin);
      const rows = users.map((user) => [String(user.id), user.name, user.email, String(user.is_admin)]);
      return formatTable(['ID', 'Name', 'Email', 'Admin'], rows);
    },
  },
  'generate-access-token': {
    options: { username: text, 'token-name': text, scopes: text, raw: flag },
    async run(values, { store }) {
      const name = optional(values, 'token-name') ?? 'hearth-admin';
      const scopes = [optional(values, 'scopes') ?? 'all'];
      const { token } = await inTx(store, async (tx) =>
        createToken(tx, await getIndividualByName(tx, required(values, 'username')), { name, scopes }),
      );
      return values.raw === true ? token : `Access token was successfully created: ${token}`;
    },
  },
  'enroll-totp': {
    options: { username: text },
    async run(values, { store, config }) {
      const { user, enrolment } = await inTx(store, async (tx) => {
        const owner = await getIndividualByName(tx, required(values, 'username'));
        return { user: owner, enrolment: await enrollTotp(tx, owner, config.security.secretKey) };
      });
      return [
        `Two-factor authentication enrolled for ${user.name}; add it to an authenticator app:`,
        `URI:    ${enrolment.uri}`,
        `Secret: ${enrolment.secret}`,
      ].join('\n');
    },
  },
};

function required(values: Values, name: string): string {
  const value = optional(values, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

const pageSize = 500;

async function allUsers(db: Queryable): Promise<UserRow[]> {
  const users: UserRow[] = [];
  for (;;) {
    const page = await searchUsers(db, { visible: [...visibilities], limit: pageSize, offset: users.length });
    users.push(...page.users);
    if (page.users.length === 0 || users.length >= page.total) return users;
  }
}

function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** `storage migrate --to minio`: needs no database, only the settings and the stores. */
async function migrateStorage(args: string[]): Promise<number> {
  let to: string | undefined;
  try {
    to = parseArgs({ args, options: { to: text }, strict: true, allowPositionals: false }).values.to;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (to !== 'minio') throw new UsageError('expected: storage migrate --to minio');
  // the bucket of [storage] whatever STORAGE_TYPE says today; a kind whose own section says local stays local
  const config = configForProcess({ ...process.env, HEARTH__storage__STORAGE_TYPE: 'minio' });
  const local = new FileBlobStore(localBlobRoot(config));
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'copying blobs [{bar}] {value}/{total} {percentage}% {eta_formatted}', stream: process.stderr }, Presets.shades_classic) : undefined;
  const progress = bar && { start: (total: number) => bar.start(total, 0), step: () => bar.increment(), stop: () => bar.stop() };
  const counts = await migrateBlobs(local, kindStores(config, local), progress);
  console.log(`${counts.total} blobs in ${local.root}: ${counts.copied} copied and verified, ${counts.present} already in the bucket, ${counts.local} kept local, ${counts.failed.length} failed`);
  for (const failure of counts.failed) console.error(`failed: ${failure}`);
  return counts.failed.length > 0 ? 1 : 0;
}

/** Reads `admin user|auth <command> [options]` or `doctor [--fix]`; a mistake is reported before any database is touched. */
function parseCommand(argv: string[]): { command: Command; values: Values } {
  if (argv[0] === 'doctor') return parseOptions(doctor, argv.slice(1));
  const [scope, noun, name, ...rest] = argv;
  if (scope !== 'admin' || (noun !== 'user' && noun !== 'auth') || name === undefined) throw new UsageError('expected: admin user <command> or admin auth <command>');
  const command = (noun === 'user' ? commands : authCommands)[name];
  if (!command) throw new UsageError(`unknown command: admin ${noun} ${name}`);
  return parseOptions(command, rest);
}

function parseOptions(command: Command, rest: string[]): { command: Command; values: Values } {
  try {
    const { values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false });
    return { command, values: values as Values };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `doctor [--fix]`: prints as it goes; its exit code says whether problems remain. */
const doctor: Command = {
  options: { fix: flag },
  async run(values, { store, config }) {
    process.exitCode = await doctorCommand(store, config, { fix: values.fix === true });
    return '';
  },
};

async function execute(command: Command, values: Values): Promise<string> {
  const config = withSecretKey(configForProcess());
  const database = await openDatabase(config, {
    onEmbeddedStart: (dir) => console.error(`starting the embedded PostgreSQL under ${dir}`),
  });
  try {
    const store = await openStore(database.url, 'web');
    try {
      return await command.run(values, { store, config });
    } finally {
      await store.close();
    }
  } finally {
    await database.stop();
  }
}

/** The message an operator needs: a 404 names what is missing in its `errors`. */
function describe(error: HttpError): string {
  const details = error.extra.errors;
  return Array.isArray(details) && details.length > 0 ? details.join('; ') : error.message;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    console.log(usage);
    return 0;
  }
  try {
    if (argv[0] === 'storage') {
      if (argv[1] !== 'migrate') throw new UsageError('expected: storage migrate --to minio');
      return await migrateStorage(argv.slice(2));
    }
    const { command, values } = parseCommand(argv);
    const output = await execute(command, values);
    if (output !== '') console.log(output);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      return 2;
    }
    if (error instanceof HttpError) console.error(describe(error));
    else console.error(describeStartupFailure(error, process.env.DATABASE_URL) ?? error);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
