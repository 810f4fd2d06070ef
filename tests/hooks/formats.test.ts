import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { startReceiver } from '../helpers/receiver.js';
import { repoWithFeature } from '../pulls/pull-setup.js';

const loopbackAllowed = { HEARTH__webhook__ALLOWED_HOST_LIST: 'loopback' };

async function createHook(hearth: TestHearth, auth: string, body: Record<string, unknown>) {
  return hearth.call('POST', '/repos/alice/tool/hooks', { auth, body: { active: true, events: ['issues', 'push'], ...body } });
}

test('slack, discord and msteams hooks receive the issue event in their own formats, with Gitea\'s headers', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  for (const [type, extra] of [['slack', { channel: '#dev', username: 'hearth-bot' }], ['discord', { username: 'Hearth' }], ['msteams', {}]] as const) {
    const made = await createHook(hearth, alice.bearer, { type, config: { url: `${receiver.url}?${type}`, content_type: 'json', ...extra } });
    t.is(made.status, 201, JSON.stringify(made.body));
    t.is(made.body.type, type);
  }
  await drain(hearth);
  t.is((await hearth.call('POST', '/repos/alice/tool/issues', { auth: alice.bearer, body: { title: 'Crash <on> start', body: 'It & crashes' } })).status, 201);
  await drain(hearth);
  const by = (type: string) => receiver.requests.find((r) => r.path.endsWith(`?${type}`))!;
  t.is(receiver.requests.length, 3);
  for (const r of receiver.requests) {
    t.is(r.headers['content-type'], 'application/json');
    t.is(r.headers['x-gitea-event'], 'issues');
    t.is(r.headers['x-gitea-event-type'], 'issues');
  }
  const root = hearth.rootUrl;
  t.deepEqual(by('slack').json, {
    channel: '#dev',
    text: `[<${root}alice/tool|alice/tool>] Issue opened: <${root}alice/tool/issues/1|#1 Crash &lt;on&gt; start> by <${root}alice|alice>`,
    username: 'hearth-bot',
    icon_url: '',
    unfurl_links: 0,
    link_names: 0,
    attachments: [{ fallback: '', color: 'eb6420', title: '#1 Crash &lt;on&gt; start', title_link: `${root}alice/tool/issues/1`, text: 'It &amp; crashes' }],
  });
  const discord = by('discord').json;
  t.like(discord, { username: 'Hearth', avatar_url: '', wait: false, tts: false, content: '' });
  t.like(discord.embeds[0], {
    title: '[alice/tool] Issue opened: #1 Crash <on> start', description: 'It & crashes', url: `${root}alice/tool/issues/1`, color: 0xeb6420,
    author: { name: 'alice', url: `${root}alice` },
  });
  const teams = by('msteams').json;
  t.like(teams, { '@type': 'MessageCard', '@context': 'https://schema.org/extensions', themeColor: 'eb6420', title: '[alice/tool] Issue opened: #1 Crash <on> start' });
  t.like(teams.sections[0], { activitySubtitle: 'alice', text: 'It & crashes' });
  t.deepEqual(teams.sections[0].facts.map((f: { name: string }) => f.name), ['Repository:', 'Issue #:']);
  t.deepEqual(teams.potentialAction, [{ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri: `${root}alice/tool/issues/1` }] }]);
});

test('a matrix hook PUTs to its URL plus the body\'s SHA-1 as transaction id, with its access token as Authorization; the other chat types deliver', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const room = `${receiver.url}/_matrix/client/r0/rooms/!room:example.org/send/m.room.message`;
  const made = await createHook(hearth, alice.bearer, {
    type: 'matrix', config: { url: room, content_type: 'json', room_id: '!room:example.org', message_type: '2' }, authorization_header: 'Bearer syt_token',
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  for (const type of ['dingtalk', 'telegram', 'feishu', 'wechatwork']) {
    t.is((await createHook(hearth, alice.bearer, { type, config: { url: `${receiver.url}?${type}`, content_type: 'json' } })).status, 201);
  }
  t.is((await createHook(hearth, alice.bearer, { type: 'packagist', config: { url: `${receiver.url}?packagist`, content_type: 'json', package_url: 'https://packagist.org/packages/alice/tool' } })).status, 201);
  await drain(hearth);
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' }, message: 'Add a' });
  await drain(hearth);
  const failed = await hearth.store.db.query<{ attempts: unknown }>('SELECT attempts FROM hook_task WHERE NOT is_succeed');
  t.deepEqual(failed, []);
  t.is(receiver.requests.length, 6, receiver.requests.map((r) => `${r.method} ${r.path}`).join(", "));
  const matrix = receiver.requests.find((r) => r.method === 'PUT')!;
  const txn = createHash('sha1').update(matrix.body).digest('hex');
  t.is(matrix.path, `/hook/_matrix/client/r0/rooms/!room:example.org/send/m.room.message/${txn}`);
  t.is(matrix.headers.authorization, 'Bearer syt_token');
  t.like(matrix.json, { msgtype: 'm.text', format: 'org.matrix.custom.html' });
  t.regex(matrix.json.formatted_body, /^\[<a href="[^"]+alice\/tool">alice\/tool<\/a>\] alice pushed 1 commit to <a href="[^"]+\/src\/branch\/main">main<\/a>:<br><a href/);
  t.regex(matrix.json.body, /^\[\[alice\/tool\]\(.*\)\] alice pushed 1 commit to \[main\]\(.*\/src\/branch\/main\):\n\[[0-9a-f]{7}\]\(.*\): Add a\n - alice$/);
  t.is(matrix.json['io.gitea.commits'].length, 1);
  const by = (type: string) => receiver.requests.find((r) => r.path.endsWith(`?${type}`))!.json;
  t.is(by('dingtalk').msgtype, 'actionCard');
  t.regex(by('dingtalk').actionCard.singleURL, /^dingtalk:\/\/dingtalkclient\/page\/link\?pc_slide=false&url=http%3A%2F%2F/);
  t.like(by('telegram'), { parse_mode: 'HTML', disable_web_page_preview: true });
  t.regex(by('telegram').text, /^\[<a href=".*">alice\/tool<\/a>:<a href=".*">main<\/a>\] 1 new commit\n\[<a href/);
  t.is(by('feishu').msg_type, 'text');
  t.regex(by('feishu').content.text, /^\[alice\/tool:main\] \r\n\[[0-9a-f]{7}\]\(.*\) Add a - /);
  t.is(by('wechatwork').msgtype, 'markdown');
  t.deepEqual(by('packagist'), { repository: { url: 'https://packagist.org/packages/alice/tool' } });
});

test('chat hook settings are checked as Gitea checks them: 422 with a message, nothing stored', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const alice = await hearth.createUser('alice');
  await build.repo(hearth, alice, { name: 'tool' });
  const url = 'https://chat.example.com/hook';
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ type: 'slack', config: { url, content_type: 'json' } }, /Missing config option: channel/],
    [{ type: 'slack', config: { url, content_type: 'json', channel: '#' } }, /Invalid slack channel name/],
    [{ type: 'packagist', config: { url, content_type: 'json' } }, /Missing config option: package_url/],
    [{ type: 'matrix', config: { url, content_type: 'json', message_type: '7' } }, /message_type/],
    [{ type: 'discord', config: { url } }, /Missing config option: content_type/],
    [{ type: 'mattermost', config: { url, content_type: 'json' } }, /Invalid hook type: mattermost/],
  ];
  for (const [body, message] of cases) {
    const answer = await createHook(hearth, alice.bearer, body);
    t.is(answer.status, 422, JSON.stringify(body));
    t.regex(answer.body.message, message);
  }
  t.deepEqual((await hearth.call('GET', '/repos/alice/tool/hooks', { auth: alice.bearer })).body, []);
  const slack = await createHook(hearth, alice.bearer, { type: 'slack', config: { url, content_type: 'json', channel: '#dev', color: '#ff0000' } });
  t.like(slack.body.config, { url, content_type: 'json', channel: '#dev', username: '', icon_url: '', color: '#ff0000' });
  const edited = await hearth.call('PATCH', `/repos/alice/tool/hooks/${slack.body.id}`, { auth: alice.bearer, body: { config: { channel: 'ops' } } });
  t.is(edited.status, 200);
  t.is(edited.body.config.channel, 'ops');
});

/** A server on loopback that answers every request with `status` and a Location header. */
async function startRedirector(t: ExecutionContext, status: number, location: string): Promise<{ url: string; hits: Array<{ method: string; path: string }> }> {
  const hits: Array<{ method: string; path: string }> = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', path: req.url ?? '' });
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { location });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/moved`, hits };
}

test('deliveries follow redirects as Gitea\'s client does; a redirect to a refused address is not followed and is recorded', async (t) => {
  // only 127.0.0.1 is allowed: 127.0.0.2 is loopback too but outside the list
  const hearth = await startHearth(t, { HEARTH__webhook__ALLOWED_HOST_LIST: '127.0.0.1/32' });
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const repo = await build.repo(hearth, alice, { name: 'tool', autoInit: true });
  const keep = await startRedirector(t, 307, `${receiver.url}?kept`);
  const toGet = await startRedirector(t, 302, `${receiver.url}?get`);
  const refused = await startRedirector(t, 308, `http://127.0.0.2:${new URL(receiver.url).port}/hook?refused`);
  const hooks = [];
  for (const url of [keep.url, toGet.url, refused.url]) {
    hooks.push(await build.hook(hearth, { repoId: repo.id }, { url, secret: 'sssh', authorization_header: 'Bearer same-host' }));
  }
  await drain(hearth);
  await build.commit(hearth, repo, { files: { 'a.txt': 'a' }, message: 'Add a' });
  await drain(hearth);

  t.deepEqual(receiver.requests.map((r) => `${r.method} ${r.path}`).sort(), ['GET /hook?get', 'POST /hook?kept']);
  const kept = receiver.requests.find((r) => r.path.endsWith('?kept'))!;
  t.is(kept.json.ref, 'refs/heads/main');
  t.is(kept.headers['x-gitea-event'], 'push');
  t.is(kept.headers.authorization, 'Bearer same-host', 'the same host keeps the Authorization header');
  t.truthy(kept.headers['x-gitea-signature']);
  const got = receiver.requests.find((r) => r.path.endsWith('?get'))!;
  t.is(got.body, '');
  t.is(got.headers['x-gitea-event'], 'push');
  t.is(refused.hits.length, 1);

  const tasks = await hearth.store.db.query<{ hook_id: number; is_delivered: boolean; is_succeed: boolean; refused: string | null; attempts: Array<{ redirects?: string[]; error: string | null }> }>(
    'SELECT hook_id::int, is_delivered, is_succeed, refused, attempts FROM hook_task ORDER BY hook_id');
  t.deepEqual(tasks.map((task) => [task.is_delivered, task.is_succeed]), [[true, true], [true, true], [true, false]]);
  t.deepEqual(tasks[0].attempts[0].redirects, [`307 ${receiver.url}?kept`]);
  t.regex(tasks[2].refused ?? '', /deny '127\.0\.0\.2\(127\.0\.0\.2\)'/);
  t.is(tasks[2].attempts.length, 1, 'a refused redirect is not retried');
});

test('chat hooks receive pull request, review and wiki events: slack bodies as Gitea builds them, discord review colours', async (t) => {
  const hearth = await startHearth(t, loopbackAllowed);
  const receiver = await startReceiver(t);
  const alice = await hearth.createUser('alice');
  const bob = await hearth.createUser('bob');
  await repoWithFeature(t, hearth, alice, 'tool');
  t.is((await hearth.call('PUT', '/repos/alice/tool/collaborators/bob', { auth: alice.bearer, body: { permission: 'write' } })).status, 204);
  const events = ['pull_request', 'wiki'];
  t.is((await createHook(hearth, alice.bearer, { type: 'slack', events, config: { url: `${receiver.url}?slack`, content_type: 'json', channel: '#dev' } })).status, 201);
  t.is((await createHook(hearth, alice.bearer, { type: 'discord', events, config: { url: `${receiver.url}?discord`, content_type: 'json' } })).status, 201);
  await drain(hearth);
  const root = hearth.rootUrl;
  const repoLink = `<${root}alice/tool|alice/tool>`;
  const take = async (type: string): Promise<any[]> => {
    await drain(hearth);
    const got = receiver.requests.filter((r) => r.path.endsWith(`?${type}`)).map((r) => r.json);
    return got;
  };
  const slackBody = (text: string, attachments: unknown = null) => ({ channel: '#dev', text, username: '', icon_url: '', unfurl_links: 0, link_names: 0, attachments });

  const created = await hearth.call('POST', '/repos/alice/tool/pulls', { auth: alice.bearer, body: { head: 'feature', base: 'main', title: 'Fix <it>', body: 'Fixes & more' } });
  t.is(created.status, 201);
  const pr = created.body;
  const [opened] = await take('slack');
  t.deepEqual(opened, slackBody(`[${repoLink}] Pull request opened: <${pr.url}|#1 Fix &lt;it&gt;> by <${root}alice|alice>`, [
    { fallback: '', color: '1ac600', title: '#1 Fix &lt;it&gt;', title_link: pr.html_url, text: 'Fixes &amp; more' },
  ]));
  receiver.requests.length = 0;

  t.is((await hearth.call('POST', '/repos/alice/tool/pulls/1/reviews', { auth: bob.bearer, body: { event: 'APPROVED', body: 'Ship it' } })).status, 200);
  const [approved] = await take('slack');
  t.deepEqual(approved, slackBody(`[${repoLink}] Pull request review approved: [#1 Fix <it>](${root}alice/tool/pulls/1) by <${root}bob|bob>`));
  const [discordApproved] = await take('discord');
  t.like(discordApproved.embeds[0], { title: '[alice/tool] Pull request review approved: #1 Fix <it>', description: 'Ship it', url: pr.html_url, color: 0x1ac600 });
  receiver.requests.length = 0;

  t.is((await hearth.call('POST', '/repos/alice/tool/pulls/1/reviews', { auth: bob.bearer, body: { event: 'REQUEST_CHANGES', body: 'Not yet' } })).status, 200);
  const [discordRejected] = await take('discord');
  t.like(discordRejected.embeds[0], { title: '[alice/tool] Pull request review rejected: #1 Fix <it>', description: 'Not yet', color: 0xff3232 });
  receiver.requests.length = 0;

  t.is((await hearth.call('PATCH', '/repos/alice/tool/pulls/1', { auth: bob.bearer, body: { state: 'closed' } })).status, 201);
  const [closed] = await take('slack');
  t.deepEqual(closed, slackBody(`[${repoLink}] Pull request closed: <${pr.url}|#1 Fix &lt;it&gt;> by <${root}bob|bob>`));
  const [discordClosed] = await take('discord');
  t.like(discordClosed.embeds[0], { title: '[alice/tool] Pull request closed: #1 Fix <it>', description: '', color: 0xff3232, author: { name: 'bob' } });
  receiver.requests.length = 0;

  t.is((await hearth.call('POST', '/repos/alice/tool/wiki/new', {
    auth: alice.bearer, body: { title: 'Home', content_base64: Buffer.from('# Home\n').toString('base64'), message: 'first page' },
  })).status, 201);
  const [wiki] = await take('slack');
  t.deepEqual(wiki, slackBody(`[${repoLink}] New wiki page '<${root}alice/tool/wiki/Home|Home>' (first page) by <${root}alice|alice>`));
  const [discordWiki] = await take('discord');
  t.like(discordWiki.embeds[0], { title: "[alice/tool] New wiki page 'Home' (first page)", description: 'first page', url: `${root}alice/tool/wiki/Home`, color: 0x1ac600 });
});
