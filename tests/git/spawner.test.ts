import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { Spawner, type SpawnRequest } from '../../db/git/spawner.js';
import { root } from '../helpers/processes.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const request = (args: string[], more: Partial<SpawnRequest> = {}): SpawnRequest => ({
  command: 'sh', args: ['-c', ...args], cwd: os.tmpdir(), env, input: Buffer.alloc(0), timeoutMs: 10_000, ...more,
});

/** A spawner whose helper has started and answered once (commands before that start from the test process). */
async function readySpawner(): Promise<Spawner> {
  const spawner = new Spawner();
  for (let tries = 0; tries < 200; tries++) {
    await spawner.run(request(['true']));
    if (await helperAnswers(spawner)) return spawner;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the helper never became ready');
}

/** True when commands now run in the helper: `$PPID` of the shell is the helper's process id. */
async function helperAnswers(spawner: Spawner): Promise<boolean> {
  const { stdout } = await spawner.run(request(['echo $PPID']));
  return spawner.pid !== undefined && stdout.toString().trim() === String(spawner.pid);
}

test('commands run in the helper with their input, output, errors and exit codes', async (t) => {
  const spawner = await readySpawner();
  t.teardown(() => spawner.stop());
  const echoed = await spawner.run(request(['cat; echo done >&2; exit 3'], { input: Buffer.from('some\0bytes') }));
  t.deepEqual(echoed, { stdout: Buffer.from('some\0bytes'), stderr: 'done\n', code: 3, timedOut: false });
  // large output and input survive the channel whole, and many commands at once get their own answers
  const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'x');
  const answers = await Promise.all([
    spawner.run(request(['cat'], { input: big })),
    ...Array.from({ length: 20 }, (_, i) => spawner.run(request([`printf ${i}`]))),
  ]);
  t.true(answers[0].stdout.equals(big));
  t.deepEqual(answers.slice(1).map((a) => a.stdout.toString()), Array.from({ length: 20 }, (_, i) => String(i)));
  t.true(await helperAnswers(spawner));
});

test('a command that cannot start rejects, and one past its time is killed', async (t) => {
  const spawner = await readySpawner();
  t.teardown(() => spawner.stop());
  const missing = path.join(mkdtempSync(path.join(os.tmpdir(), 'spawner-')), 'gone');
  const error = await t.throwsAsync(spawner.run(request(['true'], { cwd: missing })));
  t.is((error as NodeJS.ErrnoException).code, 'ENOENT');
  const started = Date.now();
  // a child of the command holds its output open (as git-remote-http does for git): the whole group is killed
  const slow = await spawner.run(request(['sleep 5 & exec sleep 5'], { timeoutMs: 200 }));
  t.is(slow.code, 1);
  t.true(slow.timedOut);
  t.true(Date.now() - started < 4_000);
});

test('a helper that dies fails its commands, and the next command starts a new one', async (t) => {
  const spawner = await readySpawner();
  t.teardown(() => spawner.stop());
  const first = spawner.pid;
  const waiting = spawner.run(request(['sleep 2']));
  spawner.stop();
  await t.throwsAsync(waiting, { message: /ended before git answered/ });
  const again = await readySpawner();
  t.teardown(() => again.stop());
  t.not(again.pid, first);
  t.true(await helperAnswers(again));
  // the old one still answers too: it starts a new helper
  t.is((await spawner.run(request(['printf ok']))).stdout.toString(), 'ok');
});

test('the helper lets its commands finish on SIGTERM, and ends with its parent', async (t) => {
  const spawner = await readySpawner();
  t.teardown(() => spawner.stop());
  const running = spawner.run(request(['sleep 0.3; printf finished']));
  process.kill(spawner.pid!, 'SIGTERM');
  t.is((await running).stdout.toString(), 'finished');
  t.true(await helperAnswers(spawner));

  // a parent killed outright: its helper sees the channel close and exits
  const source = `import { Spawner } from ${JSON.stringify(pathToFileURL(path.join(root, 'db/git/spawner.ts')).href)};
    const s = new Spawner(); const req = { command: 'true', args: [], cwd: '/', env: {}, input: Buffer.alloc(0), timeoutMs: 5000 };
    for (;;) { await s.run(req); if (s.pid && (await s.run({ ...req, command: 'sh', args: ['-c', 'echo $PPID'] })).stdout.toString().trim() === String(s.pid)) break; }
    console.log(s.pid); setInterval(() => undefined, 1000);`;
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const helperPid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
  t.true(isAlive(helperPid));
  parent.kill('SIGKILL');
  for (let tries = 0; tries < 100 && isAlive(helperPid); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.false(isAlive(helperPid));
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
