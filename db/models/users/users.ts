import type { Queryable, Tx } from '../../data-source.js';
import { hashPassword, type PasswordHash } from '../../password-hash.js';
import { badRequest, invalid, isUniqueViolation, notFound } from '../../errors.js';
import { enqueue } from '../../../jobs/queue.js';
import { selectPage, updateRow, type RowChanges } from '../../sql.js';
import { assertPassword, assertUsableName, assertValidEmail } from './names.js';
import { releaseHoldings, type UserRemoval } from '../orgs/orgs.js';
export { findUsersByIds } from './user-row.js';
import { toUserRow, userTypes, visibilities, type UserRow, type Visibility } from './user-row.js';

export interface NewUser {
  username: string;
  email: string;
  password?: string;
  full_name?: string;
  login_name?: string;
  source_id?: number;
  must_change_password?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  created_at?: Date;
  is_admin?: boolean;
}

export interface CreateUserOptions {
  passwordAlgo: string;
  /** Queue a welcome mail to the new user in the same transaction. */
  notify?: { rootUrl: string };
}

async function loginSourceType(tx: Tx, sourceId: number): Promise<'local' | 'ldap'> {
  if (sourceId === 0) return 'local';
  const [source] = await tx.query<{ type: 'local' | 'ldap' }>('SELECT type FROM login_source WHERE id = $1', [sourceId]);
  if (!source) throw invalid(`login source does not exist [id: ${sourceId}]`);
  return source.type;
}

/** Creates an individual user with a primary e-mail address. A taken name or address is a 422, also under a race. */
export async function createUser(tx: Tx, input: NewUser, options: CreateUserOptions): Promise<UserRow> {
  assertUsableName(input.username);
  assertValidEmail(input.email);
  const sourceId = input.source_id ?? 0;
  const sourceType = await loginSourceType(tx, sourceId);
  let hash: PasswordHash = { passwd: '', salt: '', passwd_hash_algo: '' };
  if (input.password !== undefined && input.password !== '') {
    assertPassword(input.password);
    hash = await hashPassword(input.password, options.passwordAlgo);
  } else if (sourceType === 'local') {
    throw badRequest('password is required for a user of the local login source');
  }
  await assertUserAbsent(tx, input.username);
  await assertEmailAbsent(tx, input.email);
  let user: UserRow;
  try {
    const [raw] = await tx.query(
      `INSERT INTO "user" (lower_name, name, full_name, email, passwd, passwd_hash_algo, salt, must_change_password,
         login_source, login_name, restricted, visibility, is_admin, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, COALESCE($14, now()), now())
       RETURNING *`,
      [
        input.username.toLowerCase(), input.username, input.full_name ?? '', input.email, hash.passwd,
        hash.passwd_hash_algo, hash.salt, input.must_change_password ?? false, sourceId,
        input.login_name ?? input.username, input.restricted ?? false,
        visibilities.indexOf(input.visibility ?? 'public'), input.is_admin ?? false, input.created_at ?? null,
      ],
    );
    user = toUserRow(raw);
    await tx.query(
      `INSERT INTO email_address (uid, email, lower_email, is_activated, is_primary) VALUES ($1, $2, $3, true, true)`,
      [user.id, input.email, input.email.toLowerCase()],
    );
  } catch (error) {
    if (isUniqueViolation(error)) {
      const emailTaken = (error as { constraint?: string }).constraint === 'email_address_lower_email_key';
      throw invalid(emailTaken ? `e-mail already in use [email: ${input.email}]` : `user already exists [name: ${input.username}]`);
    }
    throw error;
  }
  if (options.notify) {
    await enqueue(tx, 'mail', {
      to: [user.email],
      subject: `Welcome to Hearth, ${user.name}`,
      text: `Hello ${user.name},\n\nan administrator created an account for you on ${options.notify.rootUrl}.\nYour user name is ${user.name}.\n`,
    });
  }
  return user;
}

async function assertUserAbsent(tx: Tx, name: string): Promise<void> {
  const [found] = await tx.query('SELECT 1 FROM "user" WHERE lower_name = $1', [name.toLowerCase()]);
  if (found) throw invalid(`user already exists [name: ${name}]`);
}

async function assertEmailAbsent(tx: Tx, email: string, exceptUserId?: number): Promise<void> {
  const [found] = await tx.query<{ uid: string }>('SELECT uid FROM email_address WHERE lower_email = $1', [email.toLowerCase()]);
  if (found && Number(found.uid) !== exceptUserId) throw invalid(`e-mail already in use [email: ${email}]`);
}

export async function findUserByName(tx: Queryable, name: string): Promise<UserRow | null> {
  const [raw] = await tx.query('SELECT * FROM "user" WHERE lower_name = $1', [name.toLowerCase()]);
  return raw ? toUserRow(raw) : null;
}

/** Users and organizations by id, in one query; null ids are skipped, ids without a row are absent from the map. */
/** Basic authentication names a user by login name or by any of their e-mail addresses. */
export async function findUserByLogin(tx: Queryable, login: string): Promise<UserRow | null> {
  const [raw] = await tx.query(
    `SELECT u.* FROM "user" u WHERE u.lower_name = $1 AND u.type = 0
     UNION ALL
     SELECT u.* FROM "user" u JOIN email_address e ON e.uid = u.id WHERE e.lower_email = $1 AND u.type = 0
     LIMIT 1`,
    [login.toLowerCase()],
  );
  return raw ? toUserRow(raw) : null;
}

export async function getIndividualByName(tx: Queryable, name: string): Promise<UserRow> {
  const user = await findUserByName(tx, name);
  if (!user || user.type !== userTypes.individual) throw notFound(`user ${name} does not exist`);
  return user;
}

/** A user or an organization by name, as Gitea's GetUserByName: what `{username}` names in most routes. */
export async function getOwnerByName(tx: Queryable, name: string): Promise<UserRow> {
  const user = await findUserByName(tx, name);
  if (!user) throw notFound(`user ${name} does not exist`);
  return user;
}

/** Locks every administrator row, so two concurrent demotions cannot both pass the check. */
async function assertAnotherAdmin(tx: Tx, user: UserRow, message: string): Promise<void> {
  if (!user.is_admin) return;
  const admins = await tx.query<{ id: string }>('SELECT id FROM "user" WHERE is_admin ORDER BY id FOR UPDATE');
  if (!admins.some((a) => Number(a.id) !== user.id)) throw invalid(message);
}

export interface UserEdit {
  email?: string;
  full_name?: string;
  login_name?: string;
  source_id?: number;
  password?: string;
  must_change_password?: boolean;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allow_git_hook?: boolean;
  allow_import_local?: boolean;
  allow_create_organization?: boolean;
  max_repo_creation?: number;
  prohibit_login?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
}

const plainColumns = [
  'full_name', 'login_name', 'must_change_password', 'website', 'location', 'description', 'allow_git_hook',
  'allow_import_local', 'allow_create_organization', 'max_repo_creation', 'prohibit_login', 'restricted',
] as const;

/** adminEditUser: only the named columns change; the last administrator cannot be demoted. */
export async function editUser(tx: Tx, user: UserRow, edit: UserEdit, passwordAlgo: string): Promise<UserRow> {
  const sets: RowChanges<'user'> = {};
  for (const column of plainColumns) if (edit[column] !== undefined) sets[column] = edit[column];
  if (edit.active !== undefined) sets.is_active = edit.active;
  if (edit.visibility !== undefined) sets.visibility = visibilities.indexOf(edit.visibility);
  if (edit.source_id !== undefined) {
    await loginSourceType(tx, edit.source_id);
    sets.login_source = edit.source_id;
  }
  if (edit.max_repo_creation !== undefined && edit.max_repo_creation < -1) {
    throw invalid('[MaxRepoCreation]: must be -1 (use the global limit) or at least 0');
  }
  if (edit.password !== undefined && edit.password !== '') {
    assertPassword(edit.password);
    Object.assign(sets, await hashPassword(edit.password, passwordAlgo));
  }
  if (edit.admin !== undefined) {
    if (!edit.admin) await assertAnotherAdmin(tx, user, 'cannot remove the last administrator: make another user an administrator first');
    sets.is_admin = edit.admin;
  }
  if (edit.email !== undefined && edit.email.toLowerCase() !== user.email.toLowerCase()) {
    assertValidEmail(edit.email);
    await assertEmailAbsent(tx, edit.email, user.id);
    await tx.query('UPDATE email_address SET is_primary = false WHERE uid = $1', [user.id]);
    const claimed = await tx.query(
      `INSERT INTO email_address (uid, email, lower_email, is_activated, is_primary) VALUES ($1, $2, $3, true, true)
       ON CONFLICT (lower_email) DO UPDATE SET is_primary = true WHERE email_address.uid = EXCLUDED.uid
       RETURNING id`,
      [user.id, edit.email, edit.email.toLowerCase()],
    );
    if (claimed.length === 0) throw invalid(`e-mail already in use [email: ${edit.email}]`);
    sets.email = edit.email;
  }
  return updateUserColumns(tx, user.id, sets);
}

export async function updateUserColumns(tx: Queryable, id: number, sets: RowChanges<'user'>): Promise<UserRow> {
  const raw = await updateRow(tx, 'user', id, sets);
  if (!raw) throw notFound();
  return toUserRow(raw);
}

export interface SettingsEdit {
  full_name?: string;
  website?: string;
  description?: string;
  location?: string;
  language?: string;
  theme?: string;
  diff_view_style?: string;
  hide_email?: boolean;
  hide_activity?: boolean;
}

/** The caller's own settings: the columns a user may change about themselves, nothing else. */
export async function updateSettings(tx: Tx, user: UserRow, edit: SettingsEdit): Promise<UserRow> {
  const { hide_email, ...rest } = edit;
  const sets: RowChanges<'user'> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (hide_email !== undefined) sets.keep_email_private = hide_email;
  return updateUserColumns(tx, user.id, sets);
}

export async function renameUser(tx: Tx, user: UserRow, newName: string): Promise<UserRow> {
  if (newName === user.name) return user;
  assertUsableName(newName);
  if (newName.toLowerCase() !== user.lower_name) await assertUserAbsent(tx, newName);
  try {
    return await updateUserColumns(tx, user.id, { name: newName, lower_name: newName.toLowerCase() });
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid(`user already exists [name: ${newName}]`);
    throw error;
  }
}

/**
 * Deletes a user; refused for the last administrator. Without `purge`, a user who owns repositories or belongs to
 * organizations is refused too; with it, those repositories and the organizations they alone own go as well.
 */
export async function deleteUser(tx: Tx, user: UserRow, removal: UserRemoval): Promise<void> {
  await assertAnotherAdmin(tx, user, `can not delete the last admin user [uid: ${user.id}]`);
  await releaseHoldings(tx, user, removal);
  await tx.query(
    `UPDATE "user" u SET num_followers = num_followers - 1 FROM follow f WHERE f.user_id = $1 AND f.follow_id = u.id`,
    [user.id],
  );
  await tx.query(
    `UPDATE "user" u SET num_following = num_following - 1 FROM follow f WHERE f.follow_id = $1 AND f.user_id = u.id`,
    [user.id],
  );
  await tx.query('DELETE FROM "user" WHERE id = $1', [user.id]);
}

export interface UserSearch {
  q?: string;
  uid?: number;
  sourceId?: number;
  loginName?: string;
  /** Which visibilities the searcher may see. */
  visible: Visibility[];
  limit: number;
  offset: number;
}

export async function searchUsers(tx: Queryable, search: UserSearch): Promise<{ users: UserRow[]; total: number }> {
  const where = ['type = 0', 'visibility = ANY($1)'];
  const params: unknown[] = [search.visible.map((v) => visibilities.indexOf(v))];
  const add = (clause: (n: number) => string, value: unknown): void => {
    params.push(value);
    where.push(clause(params.length));
  };
  if (search.q) {
    add((n) => `(lower_name LIKE $${n} OR lower(full_name) LIKE $${n} OR lower(email) LIKE $${n})`, `%${escapeLike(search.q.toLowerCase())}%`);
  }
  if (search.uid) add((n) => `id = $${n}`, search.uid);
  if (search.sourceId !== undefined) add((n) => `login_source = $${n}`, search.sourceId);
  if (search.loginName) add((n) => `login_name = $${n}`, search.loginName);
  const clause = where.join(' AND ');
  const { rows, total } = await selectPage<Record<string, unknown>>(tx, { select: '*', from: `"user" WHERE ${clause}`, params, orderBy: 'id', page: search });
  return { users: rows.map(toUserRow), total };
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Which user visibilities a caller may see: anonymous sees public, users also limited, administrators all. */
export function visibleTo(viewer: UserRow | null): Visibility[] {
  if (!viewer) return ['public'];
  return viewer.is_admin ? ['public', 'limited', 'private'] : ['public', 'limited'];
}

/** Whether `viewer` may see `user` at all (private users are visible to themselves and administrators). */
export function canSeeUser(viewer: UserRow | null, user: UserRow): boolean {
  if (viewer && (viewer.is_admin || viewer.id === user.id)) return true;
  return visibleTo(viewer).includes(visibilities[user.visibility]);
}
