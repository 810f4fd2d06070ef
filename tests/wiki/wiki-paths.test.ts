import test from 'ava';
import {
  gitPathToWebPath, reservedSegment, titleToWebPath, webPathFromRequest, webPathToGitPath, webPathToTitle,
} from '../../db/models/wiki/wiki-paths.js';

// The tables of Gitea's services/wiki/wiki_test.go.

test('titles become web paths as Gitea spells them', (t) => {
  for (const [expected, title] of [
    ['unnamed', ''], ['unnamed', '.'], ['unnamed', '..'], ['wiki-name', 'wiki name'], ['title.md.-', 'title.md'],
    ['wiki-name.-', 'wiki-name'], ['the+wiki-name.-', 'the wiki-name'], ['a%2Fb', 'a/b'], ['a%25b', 'a%b'],
  ]) t.is(titleToWebPath(title), expected, title);
});

test('web paths show their titles', (t) => {
  for (const [expected, webPath] of [
    ['wiki name', 'wiki-name'], ['wiki-name', 'wiki-name.-'], ['name with / slash', 'name-with %2F slash'],
    ['name with % percent', 'name-with %25 percent'], ['2000-01-02 meeting', '2000-01-02+meeting.-.md'], ['a b', 'a%20b.md'],
  ]) t.is(webPathToTitle(webPath), expected, webPath);
});

test('web paths name files, and files web paths', (t) => {
  for (const [expected, webPath] of [
    ['wiki-name.md', 'wiki%20name'], ['wiki-name.md', 'wiki+name'], ['wiki name.md', 'wiki%20name.md'], ['wiki%20name.md', 'wiki%2520name.md'],
    ['2000-01-02-meeting.md', '2000-01-02+meeting'], ['2000-01-02 meeting.-.md', '2000-01-02%20meeting.-'],
    ['home-of-and-%26-or-wiki-page%21.md', titleToWebPath('home of and & or wiki page!')],
  ]) t.is(webPathToGitPath(webPath), expected, webPath);
  for (const [expected, file] of [
    ['hello-world', 'hello-world.md'], ['hello-world', 'hello world.md'], ['hello-world.-', 'hello-world.-.md'],
    ['hello+world.-', 'hello world.-.md'], ['symbols-%2F', 'symbols %2F.md'],
  ]) t.is(gitPathToWebPath(file), expected, file);
  for (const file of ['nofileextension', 'wrongfileextension.txt', 'badescaping%%.md']) t.is(gitPathToWebPath(file), null, file);
  t.is(webPathFromRequest('a/b'), 'a%2Fb');
  t.is(webPathFromRequest('a'), 'a');
  t.is(webPathFromRequest('a/../b'), 'b');
  t.is(reservedSegment(titleToWebPath('_edit')), '_edit');
  t.is(reservedSegment('Home'), null);
  t.is(titleToWebPath('a\ud800'), 'a%EF%BF%BD', 'a lone surrogate is escaped as U+FFFD, not a failure');
});

test('title, web path and file agree for every printable title', (t) => {
  let seed = 20261124;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 1000; i++) {
    const title = Array.from({ length: next(20) }, () => String.fromCharCode(0x20 + next(0x60))).join('').trim();
    if (title === '' || title === '.' || title === '..') continue;
    const webPath = titleToWebPath(title);
    const gitPath = webPathToGitPath(webPath);
    const webPath1 = gitPathToWebPath(gitPath);
    t.is(webPath1, webPath, title);
    t.is(webPathToTitle(webPath1 ?? ''), title, title);
    t.is(webPathToGitPath(webPath1 ?? ''), gitPath, title);
  }
});
