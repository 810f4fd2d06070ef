import { decryptSecret } from '../../crypto.js';
import type { Queryable } from '../../data-source.js';
import type { RepoRow } from '../repos/repo-row.js';

/**
 * Where a secret, a variable or a runner registration token belongs, as Gitea counts it: an owner (a user or an
 * organization) with `repoId` 0, a repository with `ownerId` 0, or, for registration tokens only, the instance (both 0).
 */
export interface ActionsScope {
  ownerId: number;
  repoId: number;
}

export const ownerScope = (ownerId: number): ActionsScope => ({ ownerId, repoId: 0 });
export const repoScope = (repoId: number): ActionsScope => ({ ownerId: 0, repoId });
export const instanceScope: ActionsScope = { ownerId: 0, repoId: 0 };

/** SQL matching rows of `scope` (owner_id and repo_id are NULL where Gitea stores 0), with its two parameters from `first`. */
export function scopeCondition(first: number): string {
  return `owner_id IS NOT DISTINCT FROM NULLIF($${first}::bigint, 0) AND repo_id IS NOT DISTINCT FROM NULLIF($${first + 1}::bigint, 0)`;
}

export const scopeParams = (scope: ActionsScope): [number, number] => [scope.ownerId, scope.repoId];

type RepoRef = Pick<RepoRow, 'id' | 'owner_id'>;

/**
 * The secrets a workflow of the repository sees, decrypted: its owner's (user or organization), then the
 * repository's, which win on equal names (Gitea's GetSecretsOfTask). Names are upper case.
 */
export async function secretsForRepo(db: Queryable, repo: RepoRef, secretKey: string): Promise<Record<string, string>> {
  const rows = await db.query<{ name: string; data_sealed: string }>(
    `SELECT name, data_sealed FROM secret WHERE owner_id = $1 OR repo_id = $2 ORDER BY (repo_id IS NOT NULL), id`,
    [repo.owner_id, repo.id],
  );
  const secrets: Record<string, string> = {};
  for (const row of rows) secrets[row.name] = decryptSecret(secretKey, row.data_sealed);
  return secrets;
}

/**
 * The variables a workflow of the repository sees: its owner's, then the repository's, which win on equal
 * names (Gitea's GetVariablesOfRun). Names are upper case.
 */
export async function variablesForRepo(db: Queryable, repo: RepoRef): Promise<Record<string, string>> {
  const rows = await db.query<{ name: string; data: string }>(
    `SELECT name, data FROM action_variable WHERE owner_id = $1 OR repo_id = $2 ORDER BY (repo_id IS NOT NULL), id`,
    [repo.owner_id, repo.id],
  );
  const variables: Record<string, string> = {};
  for (const row of rows) variables[row.name] = row.data;
  return variables;
}
