import test from 'ava';
import { batched } from '../../db/batch.js';

/** A batcher over a fake statement that records each batch and answers when the test says. */
function recording<I>(keyOf?: (input: I) => unknown) {
  const batches: I[][] = [];
  const answers: Array<() => void> = [];
  const call = batched(async (inputs: I[]) => {
    batches.push(inputs);
    await new Promise<void>((resolve) => answers.push(resolve));
    return inputs.map((input) => `answer to ${String(input)}`);
  }, keyOf);
  return { call, batches, answerNext: () => answers.shift()!() };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('calls of one tick share a statement; calls made while it runs share the next one; each gets its own answer', async (t) => {
  const { call, batches, answerNext } = recording<number>();
  const first = [call(1), call(2), call(3)];
  await tick();
  t.deepEqual(batches, [[1, 2, 3]]);
  const second = [call(4), call(5)];
  await tick();
  t.is(batches.length, 1, 'nothing more is sent while a statement runs');
  answerNext();
  t.deepEqual(await Promise.all(first), ['answer to 1', 'answer to 2', 'answer to 3']);
  await tick();
  t.deepEqual(batches, [[1, 2, 3], [4, 5]]);
  answerNext();
  t.deepEqual(await Promise.all(second), ['answer to 4', 'answer to 5']);
});

test('two calls with the same key never share a statement', async (t) => {
  const { call, batches, answerNext } = recording<string>((input) => input.split(':')[0]);
  const answers = Promise.all([call('a:1'), call('b:1'), call('a:2')]);
  await tick();
  t.deepEqual(batches, [['a:1', 'b:1']]);
  answerNext();
  await tick();
  t.deepEqual(batches, [['a:1', 'b:1'], ['a:2']]);
  answerNext();
  t.deepEqual(await answers, ['answer to a:1', 'answer to b:1', 'answer to a:2']);
});

test('a failed statement fails every call of its batch and none of the next', async (t) => {
  let fail!: () => void;
  const failing = new Promise<void>((resolve) => (fail = resolve));
  let calls = 0;
  const call = batched(async (inputs: number[]) => {
    if (++calls === 1) {
      await failing;
      throw new Error('the statement failed');
    }
    return inputs.map((n) => n * 10);
  });
  const failed = [call(1), call(2)];
  await tick();
  const later = call(3);
  fail();
  for (const answer of failed) await t.throwsAsync(answer, { message: 'the statement failed' });
  t.is(await later, 30);
  t.is(calls, 2);
});
