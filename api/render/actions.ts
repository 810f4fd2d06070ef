import type { SecretSummary } from '../../db/models/actions/secrets.js';
import type { VariableRow } from '../../db/models/actions/variables.js';
import { iso } from './time.js';

/** Gitea's api.Secret: the name and when it was made; the value is never rendered. */
export interface ApiSecret {
  name: string;
  created_at: string;
}

export const renderSecret = (secret: SecretSummary): ApiSecret => ({ name: secret.name, created_at: iso(secret.created) });

/** Gitea's api.ActionVariable: owner_id or repo_id is 0 where the variable does not belong. */
export interface ApiActionVariable {
  owner_id: number;
  repo_id: number;
  name: string;
  data: string;
}

export const renderVariable = (variable: VariableRow): ApiActionVariable => ({
  owner_id: variable.owner_id ?? 0, repo_id: variable.repo_id ?? 0, name: variable.name, data: variable.data,
});
