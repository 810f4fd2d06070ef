import { encryptSecret } from '../../crypto.js';
import type { Queryable, Tx } from '../../data-source.js';
import { notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { normalizeLineEnds, secretName } from './names.js';
import { scopeCondition, scopeParams, type ActionsScope } from './scope.js';

/** A secret as it is listed: the value never leaves the table except for a workflow (scope.ts). */
export interface SecretSummary {
  id: number;
  name: string;
  created: Date;
}

export async function listSecrets(db: Queryable, scope: ActionsScope, page: PageWindow): Promise<{ rows: SecretSummary[]; total: number }> {
  return selectPage<SecretSummary>(db, {
    select: 'id, name, created', from: `secret WHERE ${scopeCondition(1)}`, params: scopeParams(scope), orderBy: 'name, id', page,
  });
}

/**
 * Creates the secret or replaces its value (Gitea's CreateOrUpdateSecret): `created` tells which. The value is
 * sealed with [security] SECRET_KEY before it reaches the table.
 */
export async function putSecret(
  tx: Tx, secretKey: string, scope: ActionsScope, rawName: string, value: string, doerId: number,
): Promise<{ id: number; created: boolean }> {
  const name = secretName(rawName);
  const column = scope.repoId ? 'repo_id' : 'owner_id';
  const [row] = await tx.query<{ id: number; inserted: boolean }>(
    `INSERT INTO secret (owner_id, repo_id, name, data_sealed) VALUES (NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), $3, $4)
     ON CONFLICT (${column}, name) WHERE ${column} IS NOT NULL DO UPDATE SET data_sealed = EXCLUDED.data_sealed, updated = now()
     RETURNING id, (xmax = 0) AS inserted`,
    [scope.ownerId, scope.repoId, name, encryptSecret(secretKey, normalizeLineEnds(value))],
  );
  await emit(tx, {
    kind: row.inserted ? 'actions.secret_created' : 'actions.secret_updated', repoId: scope.repoId || null, doerId,
    payload: { owner_id: scope.ownerId, repo_id: scope.repoId, name, secret_id: row.id },
  });
  return { id: row.id, created: row.inserted };
}

/**
 * Deletes the secret named `rawName` (any case): a name no secret may have is a 400 before any look-up (Gitea's
 * DeleteSecretByName validates it as creating does), and 404 when the level has none.
 */
export async function deleteSecret(tx: Tx, scope: ActionsScope, rawName: string, doerId: number): Promise<void> {
  const name = secretName(rawName);
  const [row] = await tx.query<{ id: number }>(`DELETE FROM secret WHERE ${scopeCondition(1)} AND name = $3 RETURNING id`, [...scopeParams(scope), name]);
  if (!row) throw notFound(undefined, 'secret not found');
  await emit(tx, {
    kind: 'actions.secret_deleted', repoId: scope.repoId || null, doerId,
    payload: { owner_id: scope.ownerId, repo_id: scope.repoId, name, secret_id: row.id },
  });
}
