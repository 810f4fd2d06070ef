import test from 'ava';
import { request } from 'undici';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth, type TestUser } from '../helpers/hearth.js';
import { startSmtp } from '../helpers/smtp.js';
import { notifier } from '../../actors/notifier.js';
import { actorDeps } from '../../workers/subscribe.js';

async function threads(hearth: TestHearth, user: TestUser, query = ''): Promise<any[]> {
  const answer = await hearth.call('GET', `/notifications${query}`, { auth: user.bearer });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return answer.body;
}

/** A 205 answer with its body: fetch drops the body of a 205, Gitea's clients read it. */
async function reset(hearth: TestHearth, method: 'PUT' | 'PATCH', path: string, user: TestUser): Promise<{ status: number; body: any }> {
  const answer = await request(`${hearth.rootUrl}api/v1${path}`, { method, headers: { authorization: user.bearer } });
  const text = await answer.body.text();
  return { status: answer.statusCode, body: text ? JSON.parse(text) : undefined };
}

async function setUp(t: Parameters<typeof startHearth>[0], settings: Record<string, string> = {}) {
  const hearth = await startHearth(t, settings);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  const carol = await hearth.createUser('carol');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  t.is((await hearth.call('PUT', '/repos/alice/tool/subscription', { auth: carol.bearer })).status, 200);
  await drain(hearth);
  return { hearth, alice, bob, carol, repo };
}

test('an issue makes threads for the watchers and participants but not the doer; a comment makes a read thread unread again', async (t) => {
  const { hearth, alice, bob, carol, repo } = await setUp(t);
  const issue = await build.issue(hearth, repo, { title: 'Broken', by: bob });
  await drain(hearth);
  t.deepEqual(await threads(hearth, bob), [], 'never for the doer');
  const [aliceThread] = await threads(hearth, alice);
  t.truthy(aliceThread, 'the owner watches the repository');
  t.deepEqual(Object.keys(aliceThread), ['id', 'repository', 'subject', 'unread', 'pinned', 'updated_at', 'url']);
  t.like(aliceThread, { unread: true, pinned: false, url: `${hearth.rootUrl}api/v1/notifications/threads/${aliceThread.id}` });
  t.deepEqual(aliceThread.subject, {
    title: 'Broken',
    url: `${hearth.rootUrl}api/v1/repos/alice/tool/issues/${issue.index}`,
    latest_comment_url: '',
    html_url: `${hearth.rootUrl}alice/tool/issues/${issue.index}`,
    latest_comment_html_url: '',
    type: 'Issue',
    state: 'open',
  });
  t.like(aliceThread.repository, { id: repo.id, full_name: 'alice/tool', permissions: null });
  t.is((await threads(hearth, carol)).length, 1);
  t.deepEqual((await hearth.call('GET', '/notifications/new', { auth: alice.bearer })).body, { new: 1 });

  const marked = await reset(hearth, 'PATCH', `/notifications/threads/${aliceThread.id}`, alice);
  t.is(marked.status, 205);
  t.like(marked.body, { id: aliceThread.id, unread: false, pinned: false });
  t.deepEqual(await threads(hearth, alice), [], 'read threads are not listed by default');
  t.is((await threads(hearth, alice, '?all=true')).length, 1);
  t.deepEqual((await hearth.call('GET', '/notifications/new', { auth: alice.bearer })).body, { new: 0 });

  const comment = await hearth.call('POST', `/repos/alice/tool/issues/${issue.index}/comments`, { auth: carol.bearer, body: { body: 'me too' } });
  t.is(comment.status, 201);
  await drain(hearth);
  const [again] = await threads(hearth, alice);
  t.like(again, { id: aliceThread.id, unread: true });
  t.is(again.subject.latest_comment_url, `${hearth.rootUrl}api/v1/repos/alice/tool/issues/comments/${comment.body.id}`);
  t.is(again.subject.latest_comment_html_url, `${hearth.rootUrl}alice/tool/issues/${issue.index}#issuecomment-${comment.body.id}`);
  t.is((await threads(hearth, bob)).length, 1, 'the poster hears of the comment');
  t.is((await threads(hearth, carol, '?all=true')).length, 1, 'the commenter keeps one thread');
});

test('marking: pinned, unread and read by status; threads of others are forbidden, unknown ones not found; the repository list filters', async (t) => {
  const { hearth, alice, bob, repo } = await setUp(t);
  const other = await build.repo(hearth, alice, { name: 'other', autoInit: true });
  for (const [where, title] of [[repo, 'one'], [repo, 'two'], [other, 'three']] as const) {
    await build.issue(hearth, where, { title, by: bob });
    await drain(hearth);
  }
  const all = await threads(hearth, alice);
  t.deepEqual(all.map((n) => n.subject.title), ['three', 'two', 'one']);
  const inRepo = await hearth.call('GET', '/repos/alice/tool/notifications', { auth: alice.bearer });
  t.deepEqual(inRepo.body.map((n: any) => n.subject.title), ['two', 'one']);
  t.is(inRepo.headers.get('x-total-count'), '2');
  t.deepEqual((await threads(hearth, alice, '?subject-type=pull')), []);
  t.is((await threads(hearth, alice, '?subject-type=issue&subject-type=pull')).length, 3);

  const pinned = await reset(hearth, 'PATCH', `/notifications/threads/${all[0].id}?to-status=pinned`, alice);
  t.like(pinned.body, { pinned: true, unread: false });
  const readRepo = await reset(hearth, 'PUT', '/repos/alice/tool/notifications', alice);
  t.is(readRepo.status, 205);
  t.deepEqual(readRepo.body.map((n: any) => n.subject.title).sort(), ['one', 'two']);
  t.true(readRepo.body.every((n: any) => !n.unread));
  t.deepEqual((await threads(hearth, alice)).map((n) => n.subject.title), ['three'], 'the pinned one stays listed');
  const unpinned = await reset(hearth, 'PUT', '/notifications?status-types=pinned&to-status=unread', alice);
  t.deepEqual(unpinned.body.map((n: any) => n.subject.title), ['three']);
  t.true(unpinned.body[0].unread);
  const past = await reset(hearth, 'PUT', '/notifications?all=true&last_read_at=2000-01-01T00:00:00Z', alice);
  t.deepEqual(past.body, [], 'nothing was updated before last_read_at');

  const othersGet = await hearth.call('GET', `/notifications/threads/${all[0].id}`, { auth: bob.bearer });
  t.is(othersGet.status, 403, "another user's thread is forbidden, as Gitea's getThread");
  t.is(othersGet.body.message, `only user itself and admin are allowed to read/change this thread ${all[0].id}`);
  t.is((await hearth.call('PATCH', `/notifications/threads/${all[0].id}?to-status=read`, { auth: bob.bearer })).status, 403);
  t.is((await hearth.call('GET', '/notifications/threads/999999', { auth: bob.bearer })).status, 404);
  t.is((await hearth.call('PATCH', '/notifications/threads/999999', { auth: bob.bearer })).status, 404);
  const kept = await hearth.call('GET', `/notifications/threads/${all[0].id}`, { auth: alice.bearer });
  t.like(kept.body, { subject: { title: 'three' }, pinned: false, unread: true }, "bob's refused PATCH changed nothing");
});

test('a subscriber with no other tie gets a thread when another user comments; unsubscribing stops it, even for a watcher', async (t) => {
  const { hearth, alice, bob, carol, repo } = await setUp(t);
  const dave = await hearth.createUser('dave');
  const issue = await build.issue(hearth, repo, { title: 'Followed', by: bob });
  const subscriptions = `/repos/alice/tool/issues/${issue.index}/subscriptions`;
  t.is((await hearth.call('PUT', `${subscriptions}/dave`, { auth: dave.bearer })).status, 201);
  t.is((await hearth.call('DELETE', `${subscriptions}/carol`, { auth: carol.bearer })).status, 201);
  await drain(hearth);
  const carolBefore = await threads(hearth, carol, '?all=true');

  t.is((await hearth.call('POST', `/repos/alice/tool/issues/${issue.index}/comments`, { auth: bob.bearer, body: { body: 'ping' } })).status, 201);
  await drain(hearth);
  const [daveThread] = await threads(hearth, dave);
  t.like(daveThread, { unread: true, subject: { title: 'Followed' } }, 'the subscription alone reaches dave');
  t.deepEqual(await threads(hearth, carol, '?all=true'), carolBefore, 'the watcher who unsubscribed from the issue gets nothing new');

  t.is((await reset(hearth, 'PATCH', `/notifications/threads/${daveThread.id}`, dave)).status, 205);
  t.is((await hearth.call('DELETE', `${subscriptions}/dave`, { auth: dave.bearer })).status, 201);
  t.is((await hearth.call('POST', `/repos/alice/tool/issues/${issue.index}/comments`, { auth: bob.bearer, body: { body: 'again' } })).status, 201);
  await drain(hearth);
  t.deepEqual(await threads(hearth, dave), [], 'unsubscribed: the thread stays read');
  t.like((await threads(hearth, alice))[0], { subject: { title: 'Followed' }, unread: true }, 'the watching owner still is told');
});

test('every notification route answers 401 without a token, saying a token is required', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  for (const [method, path] of [
    ['GET', '/notifications'], ['PUT', '/notifications'], ['GET', '/notifications/new'], ['GET', '/notifications/threads/1'],
    ['PATCH', '/notifications/threads/1'], ['GET', '/repos/alice/tool/notifications'], ['PUT', '/repos/alice/tool/notifications'],
  ]) {
    const answer = await hearth.call(method, path);
    t.is(answer.status, 401, `${method} ${path}`);
    t.regex(answer.body.message, /token is required/);
  }
});

test('mail: assignees given at creation are mailed, comments mail the poster and participants, never the doer, as their preference allows', async (t) => {
  const smtp = await startSmtp(t);
  const { hearth, alice, bob, carol, repo } = await setUp(t, {
    HEARTH__mailer__ENABLED: 'true', HEARTH__mailer__SMTP_ADDR: '127.0.0.1', HEARTH__mailer__SMTP_PORT: String(smtp.port),
  });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  await hearth.store.db.query(`UPDATE "user" SET email_notifications_preference = 'disabled' WHERE id = $1`, [carol.user.id]);
  const issue = await build.issue(hearth, repo, { title: 'Crash on start', assignees: ['bob'], by: alice });
  await drain(hearth);
  const assigned = await smtp.waitFor((mail) => mail.to.includes(bob.user.email) && /assigned you/.test(mail.raw));
  t.regex(assigned.raw, /Subject: \[alice\/tool\] Crash on start \(#1\)/);
  t.regex(assigned.raw, /Content-Type: text\/plain/);
  t.regex(assigned.raw, /Content-Type: text\/html/);
  t.false(smtp.mails.some((mail) => mail.to.includes(alice.user.email)), 'never the doer');
  t.false(smtp.mails.some((mail) => mail.to.includes(carol.user.email)), 'mail disabled by preference');

  smtp.mails.length = 0;
  const comment = await hearth.call('POST', `/repos/alice/tool/issues/${issue.index}/comments`, { auth: bob.bearer, body: { body: 'looking into it' } });
  t.is(comment.status, 201);
  await drain(hearth);
  const toAlice = await smtp.waitFor((mail) => mail.to.includes(alice.user.email));
  t.regex(toAlice.raw, /Subject: Re: \[alice\/tool\] Crash on start \(#1\)/);
  t.regex(toAlice.raw, /looking into it/);
  t.false(smtp.mails.some((mail) => mail.to.includes(bob.user.email)), 'never the doer');

  smtp.mails.length = 0;
  t.is((await hearth.call('PATCH', `/repos/alice/tool/issues/${issue.index}`, { auth: alice.bearer, body: { state: 'closed' } })).status, 201);
  await drain(hearth);
  const closed = await smtp.waitFor((mail) => mail.to.includes(bob.user.email));
  t.regex(closed.raw, /closed issue #1/);
});

test('with the mailer disabled, no mail job is queued or sent', async (t) => {
  const { hearth, alice, bob, repo } = await setUp(t);
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  await build.issue(hearth, repo, { title: 'x', assignees: ['bob'], by: alice });
  const drained = await drain(hearth);
  t.true(drained.some((d) => d.name === 'notify'));
  t.false(drained.some((d) => d.name === 'mail'));
  t.is((await threads(hearth, bob)).length, 1, 'the assignee still gets a thread');
});

test('a notify job that runs again after its commit sends no mail twice: one mail per event and recipient', async (t) => {
  const smtp = await startSmtp(t);
  const { hearth, alice, bob } = await setUp(t, {
    HEARTH__mailer__ENABLED: 'true', HEARTH__mailer__SMTP_ADDR: '127.0.0.1', HEARTH__mailer__SMTP_PORT: String(smtp.port),
  });
  await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } });
  await drain(hearth);
  smtp.mails.length = 0;
  const made = await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'Twice?', assignees: ['bob'] } });
  t.is(made.status, 201);
  const [event] = await hearth.store.db.query<{ id: string }>(`SELECT id FROM domain_event WHERE kind = 'issue.assigned' ORDER BY id DESC LIMIT 1`);
  const firstRun = await drain(hearth);
  t.true(firstRun.some((d) => d.name === 'mail'));
  const assignedToBob = () => smtp.mails.filter((mail) => mail.to.includes(bob.user.email) && /assigned you/.test(mail.raw));
  await smtp.waitFor((mail) => mail.to.includes(bob.user.email) && /assigned you/.test(mail.raw));

  // the same notify job once more, as pg-boss runs a job again whose completion was lost
  const deps = actorDeps(hearth.store, hearth.config, hearth.deps.log);
  t.is(await notifier.handle({ eventId: Number(event.id) }, deps), 'done');
  const secondRun = await drain(hearth);
  t.false(secondRun.some((d) => d.name === 'mail'), 'no mail job queued again');
  // a mail that was queued would have arrived by now: the first one did within the first drain
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(assignedToBob().length, 1);
  const marked = await hearth.store.db.query('SELECT user_id::int FROM event_mail WHERE event_id = $1', [event.id]);
  t.deepEqual(marked, [{ user_id: bob.user.id }]);
});
