import test from 'ava';
import { findIssueReferences, findMarkdownIssueReferences } from '../../db/models/issues/references.js';

const brief = (text: string, root?: string) =>
  findIssueReferences(text, root).map((r) => `${r.owner ? `${r.owner}/${r.name}` : ''}#${r.index}:${r.action}`);

test('keywords and references as Gitea\'s modules/references parses them', (t) => {
  t.deepEqual(brief('fixes #1'), ['#1:closes']);
  t.deepEqual(brief('Closes: #2, RESOLVED #3 and reopens #4.'), ['#2:closes', '#3:closes', '#4:reopens']);
  t.deepEqual(brief('see #5; (#6) [#7] "#8" !9'), ['#5:none', '#6:none', '#7:none', '#8:none', '#9:none']);
  t.deepEqual(brief('prefixes #1, fix:#2, fix  #3, fix#4, #5x, a#6'), ['#1:none', '#3:none'], 'a keyword is a whole word, then an optional colon and one space');
  t.deepEqual(brief('Fixes Owner/Repo.js#12, closes a/b!3 and c#4'), ['owner/repo.js#12:closes', 'a/b#3:closes']);
  t.deepEqual(brief('fixes http://h:1/sub/o/r/issues/9 and http://h:1/sub/o/r/pulls/10', 'http://h:1/sub/'), ['o/r#9:closes', 'o/r#10:none']);
  t.deepEqual(brief('fixes http://elsewhere/o/r/issues/9', 'http://h:1/'), []);
  t.deepEqual(brief('first line\nfixes #1\n\nreopen #2'), ['#1:closes', '#2:reopens']);
});

test('a markdown description is read as Gitea\'s mdstripper reads it', (t) => {
  const root = 'http://h:1/';
  const refs = findMarkdownIssueReferences([
    'Closes #2', '', '```', 'fixes #1', '```', '', '    fixes #3 (indented code)', '',
    'and `fixes #4` inline, *fixes* #6, fixes #5', '', '<div>fixes #7</div>', '',
    'resolves http://h:1/o/r/issues/8 and [fixes](http://h:1/o/r/issues/9), [x](http://elsewhere/o/r/issues/10)',
  ].join('\n'), root);
  t.deepEqual(refs.map((r) => `${r.owner ? `${r.owner}/${r.name}` : ''}#${r.index}:${r.action}`), [
    '#2:closes', '#6:none', '#5:closes', 'o/r#8:closes', 'o/r#9:none',
  ]);
});
