import type { ExecutionContext } from 'ava';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import { actionsBotName } from '../../db/models/actions/triggers.js';
import { toUserRow, type UserRow } from '../../db/models/users/user-row.js';
import { inTx } from '../../db/data-source.js';
import { accessModeOf } from '../../db/models/access.js';
import { changeRepoFiles } from '../../db/models/code/contents.js';
import { findRepoById } from '../../db/models/repos/repos.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';

export const actionsOn = { HEARTH__actions__ENABLED: 'true' };

export async function actionsHearth(t: ExecutionContext, settings: Record<string, string> = {}): Promise<TestHearth> {
  return startHearth(t, { ...actionsOn, ...settings });
}

/** Commits files onto a branch (the default one unless named) and runs the jobs that follow: sync, notify, trigger. */
export async function push(h: TestHearth, repo: RepoRow, files: Record<string, string>, options: { branch?: string; newBranch?: string; by?: UserRow } = {}): Promise<string> {
  const written = await inTx(h.deps, async (tx) => {
    const row = (await findRepoById(tx, repo.id))!;
    const doer = options.by ?? toUserRow((await tx.query('SELECT * FROM "user" WHERE id = $1', [row.owner_id]))[0]);
    const reader = h.deps.git.open(row);
    const head = await reader.resolve(`refs/heads/${options.branch ?? row.default_branch}`);
    const commit = head ? await reader.findCommit(head) : null;
    const operations = [];
    for (const [path, content] of Object.entries(files)) {
      const exists = commit ? await reader.entryAt(commit, path) : null;
      operations.push({ operation: exists ? 'update' as const : 'create' as const, path, content: Buffer.from(content) });
    }
    const mode = await accessModeOf(tx, doer, row);
    return changeRepoFiles(tx, h.deps, row, doer, mode, { branch: options.branch, new_branch: options.newBranch }, operations);
  });
  await drain(h);
  return written.commitId;
}

/** The bot user's row, as Hearth would make it: its name is reserved, so the test inserts it. */
export async function makeBot(h: TestHearth): Promise<UserRow> {
  const [raw] = await h.store.db.query(
    `INSERT INTO "user" (lower_name, name, email, prohibit_login) VALUES ($1, $1, 'actions@hearth.invalid', true) RETURNING *`, [actionsBotName],
  );
  return toUserRow(raw);
}

export const runsOf = async (h: TestHearth, repo: RepoRow): Promise<{ workflow_path: string; status: string; event: string; is_scheduled: boolean; parse_error: string | null }[]> =>
  h.store.db.query('SELECT workflow_path, status, event, is_scheduled, parse_error FROM action_run WHERE repo_id = $1 ORDER BY id', [repo.id]);
