import type { Queryable, Tx } from '../../data-source.js';
import { selectPage } from '../../sql.js';
import { invalid, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { accessModes, type RepoRow } from './repo-row.js';
import { isUserKeyMaterial, lockKeyMaterial, parseSshPublicKey } from '../users/ssh-keys.js';
import type { UserRow } from '../users/user-row.js';

export interface DeployKeyRow {
  id: number;
  key_id: number;
  repo_id: number;
  name: string;
  content: string;
  fingerprint: string;
  mode: number;
  created: Date;
  updated: Date;
}

export interface NewDeployKey {
  title: string;
  key: string;
  read_only?: boolean;
}

/** Adds a deploy key; the same key twice, or two keys with one title, are refused like Gitea does (422). */
export async function addDeployKey(tx: Tx, repo: RepoRow, doer: UserRow, input: NewDeployKey): Promise<DeployKeyRow> {
  const key = parseSshPublicKey(input.key);
  await lockKeyMaterial(tx, key.fingerprint);
  if (await isUserKeyMaterial(tx, key.fingerprint)) throw invalid('Key content has been used as non-deploy key');
  const [sameTitle] = await tx.query('SELECT 1 FROM deploy_key WHERE repo_id = $1 AND name = $2', [repo.id, input.title]);
  if (sameTitle) throw invalid('A key with the same name already exists');
  const [sameKey] = await tx.query('SELECT 1 FROM deploy_key WHERE repo_id = $1 AND fingerprint = $2', [repo.id, key.fingerprint]);
  if (sameKey) throw invalid('This key has already been added to this repository');
  let row: DeployKeyRow;
  try {
    [row] = await tx.query<DeployKeyRow>(
      `INSERT INTO deploy_key (key_id, repo_id, name, content, fingerprint, mode)
       VALUES (COALESCE((SELECT k.key_id FROM deploy_key k WHERE k.fingerprint = $4 LIMIT 1), nextval('deploy_key_key_id_seq')), $1, $2, $3, $4, $5)
       RETURNING *`,
      [repo.id, input.title, key.content, key.fingerprint, input.read_only ? accessModes.read : accessModes.write],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw invalid('This key has already been added to this repository');
    throw error;
  }
  await emit(tx, { kind: 'repository.deploy_key_added', repoId: repo.id, doerId: doer.id, payload: { deploy_key_id: row.id, fingerprint: row.fingerprint } });
  return row;
}

export async function listDeployKeys(
  db: Queryable,
  repoId: number,
  filter: { keyId?: number; fingerprint?: string },
  page: { limit: number; offset: number },
): Promise<{ keys: DeployKeyRow[]; total: number }> {
  const where = ['repo_id = $1'];
  const params: unknown[] = [repoId];
  if (filter.keyId) where.push(`key_id = $${params.push(filter.keyId)}`);
  if (filter.fingerprint) where.push(`fingerprint = $${params.push(filter.fingerprint)}`);
  const clause = where.join(' AND ');
  const { rows, total } = await selectPage<DeployKeyRow>(db, { select: '*', from: `deploy_key WHERE ${clause}`, params, orderBy: 'id', page });
  return { keys: rows, total };
}

export async function getDeployKey(db: Queryable, repoId: number, id: number): Promise<DeployKeyRow> {
  const [row] = await db.query<DeployKeyRow>('SELECT * FROM deploy_key WHERE repo_id = $1 AND id = $2', [repoId, id]);
  if (!row) throw notFound(`deploy key ${id} does not exist`);
  return row;
}

export async function deleteDeployKey(tx: Tx, repo: RepoRow, doer: UserRow, id: number): Promise<void> {
  const [row] = await tx.query<DeployKeyRow>('DELETE FROM deploy_key WHERE repo_id = $1 AND id = $2 RETURNING *', [repo.id, id]);
  if (!row) throw notFound(`deploy key ${id} does not exist`);
  await emit(tx, { kind: 'repository.deploy_key_removed', repoId: repo.id, doerId: doer.id, payload: { deploy_key_id: row.id, fingerprint: row.fingerprint } });
}
