import { inTx, type Store } from '../../data-source.js';
import { HttpError } from '../../errors.js';
import type { Services } from '../../services.js';
import type { IssueRow } from '../issues/issue-row.js';
import { mergePull } from '../pulls/merge.js';
import type { MergeStyle } from '../pulls/merge-checks.js';
import type { PullRow } from '../pulls/pull-row.js';
import { findRepoById } from '../repos/repos.js';
import { protectionBlock } from '../reviews/protection-checks.js';
import { findUsersByIds } from '../users/users.js';
import { dropScheduledMerge, type ScheduledMergeRow } from './scheduled-merges.js';

/** The stored message of a schedule: its first paragraph is the merge commit's title, the rest its body. */
function splitMessage(message: string): { title?: string; message?: string } {
  if (!message.trim()) return {};
  const [title, ...rest] = message.split('\n\n');
  return { title, message: rest.join('\n\n') || undefined };
}

/**
 * Gitea's handlePullRequestAutoMerge: a scheduled merge of an open pull request is made as its scheduler once the
 * base branch's protection passes, then the schedule is gone; a merged or closed pull request (or a scheduler whose
 * account is gone) drops its schedule. A merge the checks still refuse (not mergeable, no permission, a moved
 * base) waits for the next check, as in Gitea; the refusal is logged.
 */
export async function runScheduledMerge(deps: Store & Services, pullId: number): Promise<'done' | 'skipped'> {
  const loaded = await inTx(deps, async (tx) => {
    const [scheduled] = await tx.query<ScheduledMergeRow>('SELECT * FROM pull_auto_merge WHERE pull_id = $1', [pullId]);
    if (!scheduled) return null;
    const [pull] = await tx.query<PullRow>('SELECT * FROM pull_request WHERE id = $1', [pullId]);
    const [issue] = await tx.query<IssueRow>('SELECT * FROM issue WHERE id = $1', [pull.issue_id]);
    const doer = (await findUsersByIds(tx, [scheduled.doer_id])).get(scheduled.doer_id);
    const base = await findRepoById(tx, pull.base_repo_id);
    if (pull.has_merged || issue.is_closed || !doer || !base) {
      await dropScheduledMerge(tx, pullId);
      return null;
    }
    return { scheduled, pull, doer, base };
  });
  if (!loaded) return 'skipped';
  const { scheduled, pull, doer, base } = loaded;
  const blocked = await protectionBlock(deps.db, deps.git, base, pull);
  if (blocked) return 'skipped';
  try {
    await inTx(deps, async (tx) => {
      await mergePull(tx, deps, base, pull, doer, {
        style: scheduled.merge_style as MergeStyle, ...splitMessage(scheduled.message), deleteBranchAfterMerge: scheduled.delete_branch_after_merge, auto: true,
      });
      await dropScheduledMerge(tx, pullId);
    });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    deps.log.info({ pullId, status: error.status, reason: error.message }, 'scheduled merge not made');
    return 'skipped';
  }
  return 'done';
}
