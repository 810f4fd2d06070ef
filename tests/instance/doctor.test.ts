import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { build } from '../helpers/build.js';
import { drain } from '../helpers/drain.js';
import { startHearth, type TestHearth } from '../helpers/hearth.js';
import { root } from '../helpers/processes.js';
import type { FileBlobStore } from '../../db/blob-store.js';
import { noProgress, type DoctorContext } from '../../db/models/instance/doctor/check.js';
import { setAsideDir } from '../../db/models/instance/doctor/repositories.js';
import { runDoctor } from '../../db/models/instance/doctor/run.js';

function doctorContext(hearth: TestHearth): DoctorContext {
  return { store: hearth.store, git: hearth.deps.git, blobs: hearth.deps.blobs, dataDir: hearth.config.dataDir, progress: noProgress };
}

/** The real command line, on the test's database and data directory; output is not a terminal, so no progress bar. */
function runCli(hearth: TestHearth, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env, DATABASE_URL: hearth.databaseUrl, HEARTH_DATA_DIR: hearth.config.dataDir,
    HEARTH__security__SECRET_KEY: 'test-secret-key', LOG_LEVEL: 'warn',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'workers/cli.ts', ...args], { cwd: root, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** What each check found, as `check: subject` lines. */
async function findings(hearth: TestHearth): Promise<string[]> {
  const reports = await runDoctor(doctorContext(hearth), { fix: false });
  return reports.flatMap((report) => report.found.map((finding) => `${report.check.name}: ${finding.subject}: ${finding.problem}`));
}

test('doctor finds each kind of damage to a data directory, --fix repairs each, and a second run finds nothing', async (t) => {
  const hearth = await startHearth(t);
  const alice = await hearth.createUser('alice');
  const app = await build.repo(hearth, alice, { name: 'app', autoInit: true });
  const lost = await build.repo(hearth, alice, { name: 'lost' });
  const overdue = await build.repo(hearth, alice, { name: 'overdue' });
  const stuck = await build.repo(hearth, alice, { name: 'stuck' });
  const issue = await build.issue(hearth, app, { title: 'the event' });
  await drain(hearth);
  const db = hearth.store.db;
  t.deepEqual(await findings(hearth), [], 'a healthy site has nothing to report');

  // a job active past its expiry
  const jobId = await hearth.store.boss.send('mail', { to: ['a@example.com'], subject: 's', text: 't' });
  await db.query(`UPDATE pgboss.job SET state = 'active', started_on = now() - interval '1 hour', expire_in = interval '1 minute' WHERE id = $1`, [jobId]);
  // a mirror overdue with no job, a mirror leased with no job running
  await db.query(`INSERT INTO mirror (repo_id, interval_seconds, next_update) VALUES ($1, 600, now() - interval '1 hour')`, [overdue.id]);
  await db.query(`INSERT INTO mirror (repo_id, interval_seconds, next_update, lease_until, lease_token) VALUES ($1, 600, now() + interval '1 hour', now() + interval '10 minutes', $2)`,
    [stuck.id, randomUUID()]);
  // a repository directory no row names, a row whose directory is gone
  await hearth.deps.git.init('ghost', 'orphan', 'main');
  rmSync(hearth.deps.git.pathOf('alice', 'lost'), { recursive: true });
  // branch rows out of step: one at the wrong commit, one naming no branch
  const [main] = await db.query<{ commit_id: string }>(`SELECT commit_id FROM branch WHERE repo_id = $1 AND name = 'main'`, [app.id]);
  await db.query(`UPDATE branch SET commit_id = $2 WHERE repo_id = $1 AND name = 'main'`, [app.id, 'f'.repeat(40)]);
  await db.query(`INSERT INTO branch (repo_id, name, commit_id, commit_time) VALUES ($1, 'gone', $2, now())`, [app.id, 'e'.repeat(40)]);
  // bytes no row names (written two hours ago), an attachment whose bytes are missing
  const blobs = hearth.deps.blobs as FileBlobStore;
  const strayKey = `stray-${randomUUID()}`;
  mkdirSync(path.dirname(blobs.pathOf(strayKey)), { recursive: true });
  writeFileSync(blobs.pathOf(strayKey), 'stray');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(blobs.pathOf(strayKey), twoHoursAgo, twoHoursAgo);
  const recentKey = `recent-${randomUUID()}`;
  await blobs.put(recentKey, Readable.from([Buffer.from('recent')]));
  const missing = randomUUID();
  await db.query(`INSERT INTO attachment (uuid, repo_id, issue_id, uploader_id, name) VALUES ($1, $2, $3, $4, 'gone.txt')`, [missing, app.id, issue.id, alice.user.id]);
  // an event whose notify job is gone
  const [event] = await db.query<{ id: number }>(`SELECT id::int FROM domain_event WHERE kind = 'issue.opened' AND repo_id = $1`, [app.id]);
  await db.query(`DELETE FROM pgboss.job WHERE name = 'notify' AND (data->>'eventId')::bigint = $1`, [event.id]);

  const found = await findings(hearth);
  t.regex(found[0], new RegExp(`^expired-jobs: job mail ${jobId}: active 00:5\\d:\\d\\d past its expiry$`));
  t.deepEqual(found.slice(1), [
    'mirrors: pull mirror alice/overdue: overdue, and no sync of it is queued',
    'mirrors: pull mirror alice/stuck: marked running, but no sync job of it is active',
    'repositories: directory ghost/orphan.git: no repository row names it',
    'repositories: repository alice/lost: has no directory',
    `branches: repository alice/app: main recorded at ffffffffff, git has ${main.commit_id.slice(0, 10)}; row gone names no branch`,
    `blobs: blob ${strayKey}: no row names it`,
    `blobs: attachment ${missing}: its blob is missing`,
    `events: event ${event.id} (issue.opened): has no notify job`,
  ]);

  const checked = await runCli(hearth, ['doctor']);
  t.is(checked.code, 1, checked.stderr);
  for (const name of ['expired-jobs', 'mirrors', 'repositories', 'branches', 'blobs', 'events']) t.regex(checked.stdout, new RegExp(`^FOUND ${name}: `, 'm'));
  t.regex(checked.stdout, /^doctor: 9 problem\(s\) found; run `npm run hearth -- doctor --fix`/m);
  t.false(checked.stderr.includes('['), 'no progress bar when standard error is not a terminal');
  t.is((await findings(hearth)).length, 9, 'doctor without --fix changes nothing');

  const fixed = await runCli(hearth, ['doctor', '--fix']);
  t.is(fixed.code, 0, fixed.stdout + fixed.stderr);
  t.regex(fixed.stdout, /^doctor: 9 problem\(s\) found, 9 fixed, 0 remain$/m);
  t.deepEqual(await findings(hearth), []);
  const again = await runCli(hearth, ['doctor']);
  t.is(again.code, 0, again.stdout);
  t.regex(again.stdout, /^doctor: 0 problem\(s\) found$/m);

  // each repair, read back
  const [job] = await db.query<{ state: string }>('SELECT state::text FROM pgboss.job WHERE id = $1', [jobId]);
  t.is(job.state, 'retry');
  const syncs = await db.query<{ repo: number }>(`SELECT (data->>'repoId')::int AS repo FROM pgboss.job WHERE name = 'mirror-sync' AND state = 'created' ORDER BY 1`);
  t.deepEqual(syncs.map((row) => row.repo), [overdue.id, stuck.id].sort((a, b) => a - b));
  const [lease] = await db.query<{ lease_until: Date | null }>('SELECT lease_until FROM mirror WHERE repo_id = $1', [stuck.id]);
  t.is(lease.lease_until, null);
  t.false(hearth.deps.git.exists('ghost', 'orphan'));
  t.true(existsSync(path.join(setAsideDir(hearth.config.dataDir), 'ghost', 'orphan.git', 'HEAD')), 'set aside, not deleted');
  t.true(hearth.deps.git.exists('alice', 'lost'));
  const [lostRow] = await db.query<{ is_empty: boolean }>('SELECT is_empty FROM repository WHERE id = $1', [lost.id]);
  t.true(lostRow.is_empty);
  t.deepEqual(await db.query(`SELECT name, commit_id FROM branch WHERE repo_id = $1 ORDER BY name`, [app.id]), [{ name: 'main', commit_id: main.commit_id }]);
  t.false(existsSync(blobs.pathOf(strayKey)));
  t.true(existsSync(blobs.pathOf(recentKey)), 'bytes written in the last hour are left alone');
  t.deepEqual(await db.query('SELECT 1 FROM attachment WHERE uuid = $1', [missing]), []);
  const notify = await db.query(`SELECT 1 FROM pgboss.job WHERE name = 'notify' AND state = 'created' AND (data->>'eventId')::bigint = $1`, [event.id]);
  t.is(notify.length, 1);
});
