import type { Queryable, Tx } from '../../data-source.js';
import { invalid, isUniqueViolation, notFound } from '../../errors.js';
import { selectPage } from '../../sql.js';
import { assertValidEmail } from './names.js';
import { escapeLike } from './users.js';
import { toUserRow, type UserRow } from './user-row.js';

export interface EmailRow {
  id: number;
  uid: number;
  email: string;
  is_activated: boolean;
  is_primary: boolean;
  username: string;
}

const emailColumns = 'e.id::int, e.uid::int, e.email, e.is_activated, e.is_primary, u.name AS username';
const emailTables = 'email_address e JOIN "user" u ON u.id = e.uid';
const selectEmails = `SELECT ${emailColumns} FROM ${emailTables}`;

/**
 * findUsersByEmails's rule as a subquery, for lists whose rows carry commit addresses: for the distinct addresses
 * `addresses` (a subquery whose column is `email`), each looked up once, a JSON object of the names of the users who have
 * them as activated addresses (compared without case), keyed by the address as given (NULL when none has).
 */
export const usernamesByEmailJson = (addresses: string): string =>
  `SELECT json_object_agg(a.email, u.name) FROM ${addresses} a
     JOIN email_address e ON e.lower_email = lower(a.email) AND e.is_activated JOIN "user" u ON u.id = e.uid`;

/**
 * Gitea's GetUserByEmail for many addresses at once (the authors and committers of commits): an address
 * belongs to the user who has it as an activated address, compared without case. Keys are lower-cased.
 */
export async function findUsersByEmails(db: Queryable, emails: string[]): Promise<Map<string, UserRow>> {
  const wanted = [...new Set(emails.filter(Boolean).map((email) => email.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const rows = await db.query<Record<string, unknown> & { matched_email: string }>(
    `SELECT e.lower_email AS matched_email, u.* FROM ${emailTables} WHERE e.lower_email = ANY($1::text[]) AND e.is_activated`,
    [wanted],
  );
  return new Map(rows.map((row) => [row.matched_email, toUserRow(row)]));
}

export async function listEmails(tx: Queryable, uid: number): Promise<EmailRow[]> {
  return tx.query<EmailRow>(`${selectEmails} WHERE e.uid = $1 ORDER BY e.is_primary DESC, e.id`, [uid]);
}

/** Adds addresses to a user; any invalid or taken address refuses the whole request. */
export async function addEmails(tx: Tx, uid: number, emails: string[]): Promise<EmailRow[]> {
  if (emails.length === 0) throw invalid('Email list empty');
  const unique = [...new Map(emails.map((e) => [e.toLowerCase(), e])).values()];
  for (const email of unique) assertValidEmail(email);
  const ids: number[] = [];
  for (const email of unique) {
    try {
      const [row] = await tx.query<{ id: number }>(
        `INSERT INTO email_address (uid, email, lower_email, is_activated, is_primary) VALUES ($1, $2, $3, true, false) RETURNING id::int`,
        [uid, email, email.toLowerCase()],
      );
      ids.push(row.id);
    } catch (error) {
      if (isUniqueViolation(error)) throw invalid(`Email address has been used: ${email}`);
      throw error;
    }
  }
  return tx.query<EmailRow>(`${selectEmails} WHERE e.id = ANY($1) ORDER BY e.id`, [ids]);
}

export async function deleteEmails(tx: Tx, uid: number, emails: string[]): Promise<void> {
  for (const email of new Set(emails.map((e) => e.toLowerCase()))) {
    const [row] = await tx.query<{ is_primary: boolean }>(
      'SELECT is_primary FROM email_address WHERE uid = $1 AND lower_email = $2',
      [uid, email.toLowerCase()],
    );
    if (!row) throw notFound(`email address ${email} does not exist`);
    if (row.is_primary) throw invalid(`the primary email address cannot be deleted: ${email}`);
    await tx.query('DELETE FROM email_address WHERE uid = $1 AND lower_email = $2', [uid, email.toLowerCase()]);
  }
}

export async function searchAllEmails(
  tx: Queryable,
  query: { q?: string; limit: number; offset: number },
): Promise<{ emails: EmailRow[]; total: number }> {
  const params: unknown[] = [];
  let where = '';
  if (query.q) {
    params.push(`%${escapeLike(query.q.toLowerCase())}%`);
    where = `WHERE e.lower_email LIKE $1 OR u.lower_name LIKE $1`;
  }
  const { rows, total } = await selectPage<EmailRow>(tx, {
    select: emailColumns, from: `${emailTables} ${where}`, params, orderBy: 'e.id', page: query,
  });
  return { emails: rows, total };
}
