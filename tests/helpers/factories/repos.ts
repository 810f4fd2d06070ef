import { inTx } from '../../../db/data-source.js';
import { createOrgRepository, type OrgRow } from '../../../db/models/orgs/orgs.js';
import { createRepository, type NewRepo } from '../../../db/models/repos/repos.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import { userTypes } from '../../../db/models/users/user-row.js';
import type { TestHearth } from '../hearth.js';
import { currentRow, doerFor, type Someone } from './current-rows.js';

export interface RepoOptions {
  /** `repo1`, `repo2`, … when not given. */
  name?: string;
  description?: string;
  private?: boolean;
  /** Writes README.md as the first commit on the default branch. */
  autoInit?: boolean;
  /** `main` when not given. */
  defaultBranch?: string;
  template?: boolean;
  objectFormat?: 'sha1' | 'sha256';
  /** Who creates it: the owner itself, or for an organization one of its owners, when not given. */
  by?: Someone;
}

let unnamed = 0;

/** A repository of `owner` (a user or an organization), created as the API creates one. */
export async function repo(h: TestHearth, owner: Someone, options: RepoOptions = {}): Promise<RepoRow> {
  return inTx(h.deps, async (tx) => {
    const ownerRow = await currentRow(tx, owner);
    const doer = await doerFor(tx, ownerRow, options.by);
    const input: NewRepo = {
      name: options.name ?? `repo${++unnamed}`, description: options.description, private: options.private, auto_init: options.autoInit,
      default_branch: options.defaultBranch, template: options.template, object_format_name: options.objectFormat,
    };
    return ownerRow.type === userTypes.organization
      ? createOrgRepository(tx, h.deps, ownerRow as OrgRow, doer, input)
      : createRepository(tx, h.deps, ownerRow, doer, input);
  });
}
