import { createHash, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../../crypto.js';
import type { Queryable, Tx } from '../../data-source.js';
import { emit } from '../../events/emit.js';
import { scopeCondition, scopeParams, type ActionsScope } from './scope.js';

/** A registration token as a runner presents it: where runners registered with it belong (0: instance, none). */
export interface RegistrationTokenRef {
  id: number;
  ownerId: number;
  repoId: number;
  /** False once the level's token was reset: Gitea refuses it ("runner registration token has been invalidated"). */
  isActive: boolean;
}

interface TokenRow {
  id: number;
  owner_id: number | null;
  repo_id: number | null;
  token_sealed: string;
  is_active: boolean;
}

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

const refOf = (row: TokenRow): RegistrationTokenRef => ({ id: row.id, ownerId: row.owner_id ?? 0, repoId: row.repo_id ?? 0, isActive: row.is_active });

/**
 * The token a runner registers with, found by its SHA-256 (so the text is never compared in SQL), active or not;
 * null for a token nobody issued.
 */
export async function findRegistrationToken(db: Queryable, token: string): Promise<RegistrationTokenRef | null> {
  if (!token) return null;
  const [row] = await db.query<TokenRow>('SELECT * FROM action_runner_token WHERE token_hash = $1', [hashOf(token)]);
  return row ? refOf(row) : null;
}

/**
 * The level's active registration token, issued on first request and the same afterwards until it is reset
 * (Gitea's GetLatestRunnerToken, then NewRunnerToken when there is none). Two first requests at once get one token.
 */
export async function registrationTokenFor(tx: Tx, secretKey: string, scope: ActionsScope, doerId: number | null): Promise<string> {
  const [existing] = await tx.query<TokenRow>(`SELECT * FROM action_runner_token WHERE ${scopeCondition(1)} AND is_active`, scopeParams(scope));
  if (existing) return decryptSecret(secretKey, existing.token_sealed);
  const issued = await insertToken(tx, secretKey, scope, doerId, 'actions.runner_token_created');
  if (issued) return issued;
  const [winner] = await tx.query<TokenRow>(`SELECT * FROM action_runner_token WHERE ${scopeCondition(1)} AND is_active`, scopeParams(scope));
  return decryptSecret(secretKey, winner.token_sealed);
}

/** Replaces the level's token with a new one: the old one no longer registers runners (Gitea's reset link). */
export async function resetRegistrationToken(tx: Tx, secretKey: string, scope: ActionsScope, doerId: number | null): Promise<string> {
  await tx.query(`UPDATE action_runner_token SET is_active = false, updated = now() WHERE ${scopeCondition(1)} AND is_active`, scopeParams(scope));
  const token = await insertToken(tx, secretKey, scope, doerId, 'actions.runner_token_reset');
  if (!token) throw new Error('a registration token was issued concurrently with its reset');
  return token;
}

async function insertToken(
  tx: Tx, secretKey: string, scope: ActionsScope, doerId: number | null, kind: 'actions.runner_token_created' | 'actions.runner_token_reset',
): Promise<string | null> {
  const token = randomBytes(20).toString('hex');
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO action_runner_token (owner_id, repo_id, token_hash, token_sealed) VALUES (NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), $3, $4)
     ON CONFLICT ((COALESCE(owner_id, 0)), (COALESCE(repo_id, 0))) WHERE is_active DO NOTHING RETURNING id`,
    [scope.ownerId, scope.repoId, hashOf(token), encryptSecret(secretKey, token)],
  );
  if (!row) return null;
  await emit(tx, {
    kind, repoId: scope.repoId || null, doerId, payload: { owner_id: scope.ownerId, repo_id: scope.repoId, token_id: row.id },
  });
  return token;
}
