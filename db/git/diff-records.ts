/** One file of `git diff -z` output with `--raw`, `--numstat` or both. */
export interface DiffRecord {
  /** The raw status letter (A, C, D, M, R, T…); '' when only `--numstat` was asked for. */
  status: string;
  path: string;
  /** The source of a rename or copy, else ''. */
  fromPath: string;
  additions: number;
  deletions: number;
  /** A binary file: numstat counts no lines. */
  binary: boolean;
}

/** Lines of a numstat record ("-" for a binary file). */
const count = (text: string): number => Number(text) || 0;

/**
 * Reads `git diff -z` (or `git show|log -z --format=%x01%H`) output with `--raw`, `--numstat` or both, one list of
 * files per commit ('' for a plain diff without commit headers), in git's order. Git writes the numstat records of
 * a commit after its raw records, one for each and in the same order, so the two are paired by position.
 */
export function parseDiffRecords(output: string): Map<string, DiffRecord[]> {
  const commits = new Map<string, DiffRecord[]>();
  let files: DiffRecord[] = [];
  commits.set('', files);
  let counted = 0;
  const tokens = output.split('\0');
  for (let i = 0; i < tokens.length; i++) {
    // a commit's header and its first record are separated by a newline
    const token = tokens[i].startsWith('\n') ? tokens[i].slice(1) : tokens[i];
    if (!token) continue;
    if (token.startsWith('\u0001')) {
      files = [];
      commits.set(token.slice(1).trim(), files);
      counted = 0;
    } else if (token.startsWith(':')) {
      // ":old-mode new-mode old-id new-id STATUS", then the path, or the source and target of a rename or copy
      const status = token.slice(token.lastIndexOf(' ') + 1, token.lastIndexOf(' ') + 2);
      const twoPaths = status === 'R' || status === 'C';
      const first = tokens[++i];
      files.push({ status, path: twoPaths ? tokens[++i] : first, fromPath: twoPaths ? first : '', additions: 0, deletions: 0, binary: false });
    } else {
      // "added\tdeleted\tpath", or "added\tdeleted\t" followed by the source and target of a rename
      const firstTab = token.indexOf('\t');
      const secondTab = token.indexOf('\t', firstTab + 1);
      const added = token.slice(0, firstTab);
      let path = token.slice(secondTab + 1);
      let fromPath = '';
      if (!path) {
        fromPath = tokens[++i];
        path = tokens[++i];
      }
      let file = files[counted];
      if (!file) files.push((file = { status: '', path, fromPath, additions: 0, deletions: 0, binary: false }));
      counted++;
      file.binary = added === '-';
      file.additions = count(added);
      file.deletions = count(token.slice(firstTab + 1, secondTab));
    }
  }
  return commits;
}
