/**
 * Gitea's CutDiffAroundLine: from one file's diff, the headers and the last `lines` lines of the hunk up to `line`
 * (of the old file when `old`, else the new), under a hunk header recomputed for them; '' when no hunk holds the line.
 */
export function cutDiffAroundLine(diff: string, line: number, old: boolean, lines: number): string {
  if (line === 0 || lines === 0) return '';
  const hunk: string[] = [];
  let headerLines = 0;
  let inHunk = false;
  let current = 0;
  let other = 0;
  for (const text of diff.split('\n')) {
    if (!inHunk && !text.startsWith('@@')) {
      if (/^(diff --git |index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode)/.test(text)) {
        hunk.push(text);
        headerLines++;
      }
      continue;
    }
    if (current > line) break;
    if (text.startsWith('@@')) {
      inHunk = true;
      if (hunk.length > headerLines) break;
      const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
      if (!match) continue;
      const [oldStart, oldCount, newStart, newCount] = [Number(match[1]), Number(match[2] ?? 1), Number(match[3]), Number(match[4] ?? 1)];
      const begin = old ? oldStart : newStart;
      const end = begin + (old ? oldCount : newCount);
      if (begin <= line && end >= line) {
        hunk.push(text);
        current = begin;
        other = old ? newStart : oldStart;
      }
      continue;
    }
    if (hunk.length === headerLines || text === '') continue;
    hunk.push(text);
    if (text[0] === '+') {
      if (old) other++;
      else current++;
    } else if (text[0] === '-') {
      if (old) current++;
      else other++;
    } else if (text[0] !== '\\') {
      current++;
      other++;
    }
  }
  if (hunk.length === headerLines) return '';
  const bodyStart = headerLines + 1;
  const bound = hunk.length - bodyStart > lines ? hunk.length - lines : bodyStart;
  let oldCount = 0;
  let newCount = 0;
  for (const text of hunk.slice(bound)) {
    if (text[0] === '-') oldCount++;
    else if (text[0] === '+') newCount++;
    else if (text[0] !== '\\') {
      oldCount++;
      newCount++;
    }
  }
  const oldBegin = (old ? current : other) - oldCount;
  const newBegin = (old ? other : current) - newCount;
  return [...hunk.slice(0, headerLines), `@@ -${oldBegin},${oldCount} +${newBegin},${newCount} @@`, ...hunk.slice(bound)].join('\n');
}
