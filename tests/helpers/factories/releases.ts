import { inTx } from '../../../db/data-source.js';
import { createRelease, type ReleaseRow } from '../../../db/models/releases/releases.js';
import type { RepoRow } from '../../../db/models/repos/repo-row.js';
import type { TestHearth } from '../hearth.js';
import { currentRepo, doerFor, userById, type Someone } from './current-rows.js';

export interface ReleaseOptions {
  /** `v1`, `v2`, … when not given. */
  tag?: string;
  /** The branch or commit a missing tag is created at: the default branch when not given. */
  target?: string;
  title?: string;
  note?: string;
  draft?: boolean;
  prerelease?: boolean;
  /** The repository's owner (or an owner of its organization) when not given. */
  by?: Someone;
}

let unnamed = 0;

/** A release of a repository that has commits; a published one gets its tag. */
export async function release(h: TestHearth, repo: RepoRow, options: ReleaseOptions = {}): Promise<ReleaseRow> {
  return inTx(h.deps, async (tx) => {
    const row = await currentRepo(tx, repo);
    const doer = await doerFor(tx, await userById(tx, row.owner_id), options.by);
    return createRelease(tx, h.deps, row, doer, {
      tag_name: options.tag ?? `v${++unnamed}`, target_commitish: options.target, name: options.title, body: options.note,
      draft: options.draft, prerelease: options.prerelease,
    });
  });
}
