import type { Queryable, Tx } from '../../data-source.js';
import { conflict, isUniqueViolation, notFound } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { selectPage, type PageWindow } from '../../sql.js';
import { normalizeLineEnds, storedName, variableName } from './names.js';
import { scopeCondition, scopeParams, type ActionsScope } from './scope.js';

/** A row of `action_variable`. */
export interface VariableRow {
  id: number;
  owner_id: number | null;
  repo_id: number | null;
  name: string;
  data: string;
}

export async function listVariables(db: Queryable, scope: ActionsScope, page: PageWindow): Promise<{ rows: VariableRow[]; total: number }> {
  return selectPage<VariableRow>(db, { select: '*', from: `action_variable WHERE ${scopeCondition(1)}`, params: scopeParams(scope), orderBy: 'name, id', page });
}

/** The variable named `rawName` (any case) of the level, or 404 "variable not found" (Gitea's GetVariable). */
export async function getVariable(db: Queryable, scope: ActionsScope, rawName: string): Promise<VariableRow> {
  const name = storedName(rawName);
  const [row] = name ? await db.query<VariableRow>(`SELECT * FROM action_variable WHERE ${scopeCondition(1)} AND name = $3`, [...scopeParams(scope), name]) : [];
  if (!row) throw notFound(undefined, 'variable not found');
  return row;
}

const exists = (name: string) => conflict(`variable name ${name} already exists`);

/** Creates a variable (Gitea's CreateVariable): 400 for a name the rules refuse, 409 when the level has it already. */
export async function createVariable(tx: Tx, scope: ActionsScope, rawName: string, value: string, doerId: number): Promise<VariableRow> {
  const name = variableName(rawName);
  try {
    const [row] = await tx.query<VariableRow>(
      'INSERT INTO action_variable (owner_id, repo_id, name, data) VALUES (NULLIF($1::bigint, 0), NULLIF($2::bigint, 0), $3, $4) RETURNING *',
      [scope.ownerId, scope.repoId, name, normalizeLineEnds(value)],
    );
    await emit(tx, {
      kind: 'actions.variable_created', repoId: scope.repoId || null, doerId,
      payload: { owner_id: scope.ownerId, repo_id: scope.repoId, name, variable_id: row.id },
    });
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw exists(rawName);
    throw error;
  }
}

/**
 * Sets the value of the variable named `rawName`, and renames it when `newName` is given (Gitea's UpdateVariable):
 * 404 when it does not exist, 400 for a new name the rules refuse, 409 when the new name is taken.
 */
export async function updateVariable(
  tx: Tx, scope: ActionsScope, rawName: string, edit: { name?: string; value: string }, doerId: number,
): Promise<VariableRow> {
  const current = await getVariable(tx, scope, rawName);
  const name = variableName(edit.name || rawName);
  const data = normalizeLineEnds(edit.value);
  try {
    const [row] = await tx.query<VariableRow>('UPDATE action_variable SET name = $2, data = $3, updated = now() WHERE id = $1 RETURNING *', [current.id, name, data]);
    const previous = { ...(name !== current.name ? { name: current.name } : {}), ...(data !== current.data ? { data: current.data } : {}) };
    await emit(tx, {
      kind: 'actions.variable_updated', repoId: scope.repoId || null, doerId,
      payload: { owner_id: scope.ownerId, repo_id: scope.repoId, name, variable_id: row.id, previous },
    });
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw exists(edit.name ?? rawName);
    throw error;
  }
}

/** Deletes the variable named `rawName` (any case); 404 when the level has none. */
export async function deleteVariable(tx: Tx, scope: ActionsScope, rawName: string, doerId: number): Promise<void> {
  const name = storedName(rawName);
  const [row] = name ? await tx.query<{ id: number }>(`DELETE FROM action_variable WHERE ${scopeCondition(1)} AND name = $3 RETURNING id`, [...scopeParams(scope), name]) : [];
  if (!row || !name) throw notFound(undefined, 'variable not found');
  await emit(tx, {
    kind: 'actions.variable_deleted', repoId: scope.repoId || null, doerId,
    payload: { owner_id: scope.ownerId, repo_id: scope.repoId, name, variable_id: row.id },
  });
}
