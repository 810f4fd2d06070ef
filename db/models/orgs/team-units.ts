/** Gitea's repository units, in its order (unit.AllRepoUnitTypes). */
export const unitKeys = [
  'repo.code', 'repo.issues', 'repo.pulls', 'repo.releases', 'repo.wiki', 'repo.ext_wiki', 'repo.ext_issues',
  'repo.projects', 'repo.packages', 'repo.actions',
] as const;
export type UnitKey = (typeof unitKeys)[number];

export const accessModeNames = ['none', 'read', 'write', 'admin', 'owner'] as const;
export type AccessModeName = (typeof accessModeNames)[number];
