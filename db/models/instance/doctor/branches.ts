import { existsSync } from 'node:fs';
import { inTx } from '../../../data-source.js';
import { syncAllBranches } from '../../code/branch-rows.js';
import { eachWithProgress, type DoctorCheck, type Finding } from './check.js';

interface BranchFinding extends Finding {
  repoId: number;
  owner: string;
  name: string;
  objectFormat: string;
}

/**
 * Branch rows out of step with the repository's git heads: a branch without a row, a row without a branch, a row at
 * another commit. One `git for-each-ref` per repository. The fix is the branch sync of the whole repository, which
 * makes the rows a copy of the heads.
 */
export const branches: DoctorCheck<BranchFinding> = {
  name: 'branches',
  title: 'branch records out of step with the git refs',
  async find(ctx) {
    const repos = await ctx.store.db.query<{ id: number; owner_name: string; name: string; object_format_name: string }>(
      'SELECT id::int, owner_name, name, object_format_name FROM repository WHERE status = 0 ORDER BY lower(owner_name), lower_name',
    );
    const rows = await ctx.store.db.query<{ repo_id: number; name: string; commit_id: string }>('SELECT repo_id::int, name, commit_id FROM branch');
    const recorded = new Map<number, Map<string, string>>();
    for (const row of rows) {
      if (!recorded.has(row.repo_id)) recorded.set(row.repo_id, new Map());
      recorded.get(row.repo_id)!.set(row.name, row.commit_id);
    }
    const findings: BranchFinding[] = [];
    await eachWithProgress(ctx, repos, async (repo) => {
      if (!existsSync(ctx.git.pathOf(repo.owner_name, repo.name))) return;
      const heads = await ctx.git.open(repo).readHeads();
      const mine = recorded.get(repo.id) ?? new Map<string, string>();
      const problems: string[] = [];
      for (const head of heads) {
        const at = mine.get(head.branch);
        if (at === undefined) problems.push(`${head.branch} has no row`);
        else if (at !== head.sha) problems.push(`${head.branch} recorded at ${at.slice(0, 10)}, git has ${head.sha.slice(0, 10)}`);
      }
      for (const name of mine.keys()) if (!heads.some((head) => head.branch === name)) problems.push(`row ${name} names no branch`);
      if (problems.length > 0) {
        findings.push({
          repoId: repo.id, owner: repo.owner_name, name: repo.name, objectFormat: repo.object_format_name,
          subject: `repository ${repo.owner_name}/${repo.name}`, problem: problems.join('; '),
        });
      }
    });
    return findings;
  },
  async fix(ctx, findings) {
    await eachWithProgress(ctx, findings, async (finding) => {
      const repoGit = ctx.git.open({ owner_name: finding.owner, name: finding.name, object_format_name: finding.objectFormat });
      await inTx(ctx.store, (tx) => syncAllBranches(tx, repoGit, finding.repoId, null));
    });
    return findings.length;
  },
};
