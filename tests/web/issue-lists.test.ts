import test from 'ava';
import { build } from '../helpers/build.js';
import { Browser, type Page } from '../helpers/browser.js';
import { startHearth } from '../helpers/hearth.js';

const xss = '<script>alert(1)</script>';
const textOf = (page: Page): string => page.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('issue and pull request lists (state, labels, search, paged by 20), a pull request conversation, milestones, labels', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const tool = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const call = async (method: string, path: string, body: unknown) => {
    const answer = await hearth.call(method, path, { auth: alice.bearer, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const bug = await call('POST', '/repos/alice/tool/labels', { name: 'bug', color: '#ee0701', description: 'Something broken' });
  const milestone = await call('POST', '/repos/alice/tool/milestones', { title: 'Version one', description: 'the first' });
  await build.issue(hearth, tool, { title: `Crash ${xss}`, labels: [bug.id], milestoneId: milestone.id });
  for (let i = 0; i < 21; i++) await build.issue(hearth, tool, { title: `Plain issue ${i}` });
  await build.issue(hearth, tool, { title: 'Old closed one', closed: true });
  await build.commit(hearth, tool, { files: { 'topic.txt': 'topic\n' }, newBranch: 'topic' });
  await call('POST', '/repos/alice/tool/pulls', { head: 'topic', base: 'main', title: 'Add the topic', body: 'Please **merge**.' });
  await build.repo(hearth, alice, { name: 'secret', private: true, autoInit: true });
  const browser = new Browser(hearth.rootUrl);

  const open = await browser.get('/alice/tool/issues');
  t.is(open.status, 200);
  t.regex(textOf(open), /22 issues/);
  t.false(textOf(open).includes('Old closed one'));
  t.false(textOf(open).includes('Add the topic'), 'pull requests are not in the issue list');
  t.false(open.html.includes(xss));
  t.true(open.html.includes('?state=open&amp;page=2') || open.html.includes('?state=open&page=2'));
  const page2 = await browser.get('/alice/tool/issues?page=2');
  t.is((page2.html.match(/<li/g) ?? []).length >= 2, true);
  t.regex(textOf(await browser.get('/alice/tool/issues?state=closed')), /Old closed one/);
  const labelled = await browser.get('/alice/tool/issues?labels=bug');
  t.regex(textOf(labelled), /1 issue /);
  t.regex(textOf(labelled), /Crash &lt;script/);
  t.regex(textOf(labelled), /Version one/);
  const searched = await browser.get('/alice/tool/issues?q=Crash');
  t.regex(textOf(searched), /1 issue /);

  const pulls = await browser.get('/alice/tool/pulls');
  t.regex(textOf(pulls), /1 pull request/);
  const number = /href="\/alice\/tool\/pulls\/(\d+)"/.exec(pulls.html)![1];
  const pull = await browser.get(`/alice/tool/pulls/${number}`);
  t.is(pull.status, 200);
  t.regex(textOf(pull), /Add the topic/);
  t.regex(textOf(pull), /wants to merge topic into main/);
  t.true(pull.html.includes('<strong>merge</strong>'));
  const redirected = await browser.get(`/alice/tool/issues/${number}`);
  t.true(redirected.status === 303 || textOf(redirected).includes('wants to merge'), 'an issue path of a pull request leads to the pull request');
  t.is((await browser.get('/alice/tool/pulls/1')).status, 404, 'an issue is not a pull request');

  const milestones = await browser.get('/alice/tool/milestones');
  t.regex(textOf(milestones), /Version one open 1 open · 0 closed/);
  const labels = await browser.get('/alice/tool/labels');
  t.regex(textOf(labels), /bug #ee0701 Something broken/);

  for (const path of ['/alice/secret/issues', '/alice/secret/pulls', '/alice/secret/milestones', '/alice/secret/labels', '/alice/tool/pulls/999', '/alice/tool/pulls/abc']) {
    t.is((await browser.get(path)).status, 404, path);
  }
});
