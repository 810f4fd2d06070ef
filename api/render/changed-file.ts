import type { ChangedPath } from '../../db/git/pulls.js';
import type { IssueRepo } from '../../db/views/issues.js';
import { pathEscapeSegments } from './git.js';
import { repoApiUrl } from './issue.js';
import type { RenderContext } from './user.js';

/** The ChangedFile definition of the Gitea 1.22 API description. */
export interface ApiChangedFile {
  filename: string;
  previous_filename: string;
  status: string;
  additions: number;
  deletions: number;
  changes: number;
  html_url: string;
  contents_url: string;
  raw_url: string;
}

/** Gitea's ToChangedFile: a modified file is `changed` (`unchanged` without changed lines), links at the head commit. */
export function renderChangedFile(file: ChangedPath, repo: IssueRepo, commit: string, ctx: RenderContext): ApiChangedFile {
  let status: string = file.status;
  if (file.status === 'modified' || file.status === 'changed') status = file.additions === 0 && file.deletions === 0 ? 'unchanged' : 'changed';
  const html = `${ctx.rootUrl}${encodeURIComponent(repo.owner_name)}/${encodeURIComponent(repo.name)}`;
  const path = pathEscapeSegments(file.filename);
  return {
    filename: file.filename,
    previous_filename: file.status === 'renamed' ? file.previousFilename : '',
    status,
    additions: file.additions,
    deletions: file.deletions,
    changes: file.additions + file.deletions,
    html_url: `${html}/src/commit/${encodeURIComponent(commit)}/${path}`,
    contents_url: `${repoApiUrl(repo, ctx)}/contents/${path}?ref=${encodeURIComponent(commit)}`,
    raw_url: `${html}/raw/commit/${commit}/${path}`,
  };
}
