import path from 'node:path';
import { existsSync } from 'node:fs';
import type { DoctorCheck, Finding } from './check.js';

interface RepositoryFinding extends Finding {
  kind: 'directory' | 'row';
  owner: string;
  /** The directory's name without `.git` (a wiki's ends in `.wiki`), or the repository's name. */
  name: string;
  repoId: number | null;
  defaultBranch: string;
  objectFormat: 'sha1' | 'sha256';
}

interface RepositoryRow {
  id: number;
  owner_name: string;
  name: string;
  default_branch: string;
  object_format_name: string;
}

/** Where directories no repository row names are moved to by the fix: kept under the data directory, out of the git store. */
export const setAsideDir = (dataDir: string): string => path.join(dataDir, 'doctor', 'orphaned-repositories');

/** Repositories that are ready (not being migrated, whose clone makes the directory later). */
async function readyRepositories(ctx: Parameters<DoctorCheck['find']>[0]): Promise<RepositoryRow[]> {
  return ctx.store.db.query<RepositoryRow>(
    'SELECT id::int, owner_name, name, default_branch, object_format_name FROM repository WHERE status = 0 ORDER BY lower(owner_name), lower_name',
  );
}

/**
 * Repository directories no repository row names (a wiki's directory counts as its repository's), and ready
 * repositories with no directory. The fix moves a directory without a row aside, under
 * `$HEARTH_DATA_DIR/doctor/orphaned-repositories` (nothing is deleted), and gives a row without a directory a new
 * empty repository (its branch rows removed), so the repository answers again, empty.
 */
export const repositories: DoctorCheck<RepositoryFinding> = {
  name: 'repositories',
  title: 'repository directories without a row, rows without a directory',
  async find(ctx) {
    const rows = await readyRepositories(ctx);
    const known = await ctx.store.db.query<{ owner: string; name: string }>('SELECT lower(owner_name) AS owner, lower_name AS name FROM repository');
    const names = new Set(known.map((row) => `${row.owner}/${row.name}`));
    const findings: RepositoryFinding[] = [];
    for (const dir of await ctx.git.listDirectories()) {
      const repoName = dir.name.endsWith('.wiki') ? dir.name.slice(0, -'.wiki'.length) : dir.name;
      if (names.has(`${dir.owner}/${repoName}`)) continue;
      findings.push({
        kind: 'directory', owner: dir.owner, name: dir.name, repoId: null, defaultBranch: '', objectFormat: 'sha1',
        subject: `directory ${dir.owner}/${dir.name}.git`, problem: 'no repository row names it',
      });
    }
    for (const row of rows) {
      if (existsSync(ctx.git.pathOf(row.owner_name, row.name))) continue;
      findings.push({
        kind: 'row', owner: row.owner_name, name: row.name, repoId: row.id, defaultBranch: row.default_branch,
        objectFormat: row.object_format_name === 'sha256' ? 'sha256' : 'sha1',
        subject: `repository ${row.owner_name}/${row.name}`, problem: 'has no directory',
      });
    }
    return findings;
  },
  async fix(ctx, findings) {
    let fixed = 0;
    for (const finding of findings) {
      if (finding.kind === 'directory') {
        if (!ctx.git.exists(finding.owner, finding.name)) continue;
        await ctx.git.setAside(finding.owner, finding.name, setAsideDir(ctx.dataDir));
      } else {
        if (ctx.git.exists(finding.owner, finding.name)) continue;
        await ctx.git.init(finding.owner, finding.name, finding.defaultBranch, finding.objectFormat);
        await ctx.store.db.query('DELETE FROM branch WHERE repo_id = $1', [finding.repoId]);
        await ctx.store.db.query('UPDATE repository SET is_empty = true, updated = now() WHERE id = $1', [finding.repoId]);
      }
      fixed++;
    }
    return fixed;
  },
};
