import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import { DigestThreads, type BlobDigests, type Digesting } from '../../db/blob-digests.js';

const expected = (content: Buffer): BlobDigests => ({
  md5: createHash('md5').update(content).digest('hex'),
  sha1: createHash('sha1').update(content).digest('hex'),
  sha256: createHash('sha256').update(content).digest('hex'),
  sha512: createHash('sha512').update(content).digest('hex'),
});

const update = (stream: Digesting, chunk: Buffer): Promise<void> =>
  new Promise((resolve, reject) => stream.update(chunk, (error) => (error ? reject(error) : resolve())));

/** Feeds `content` in pieces of the given sizes, over and over until it is all in. */
async function feed(stream: Digesting, content: Buffer, sizes: number[]): Promise<void> {
  for (let offset = 0, i = 0; offset < content.length; i++) {
    const size = sizes[i % sizes.length];
    await update(stream, content.subarray(offset, offset + size));
    offset += size;
  }
}

test('the digest threads hash streams of any chunking, several at once, chunks larger than the ring included', async (t) => {
  const threads = new DigestThreads();
  t.teardown(() => threads.close());
  const big = randomBytes(10 * 1024 * 1024);
  const odd = randomBytes(3 * 1024 * 1024 + 17);
  const small = Buffer.from('a small file');
  const streams = [threads.start(), threads.start(), threads.start(), threads.start()];
  await Promise.all([
    feed(streams[0], big, [9 * 1024 * 1024, 1, 65_536, 1_000_003]),
    feed(streams[1], odd, [7, 4096, 65_536 * 3]),
    feed(streams[2], small, [small.length]),
  ]);
  t.deepEqual(await streams[0].finish(), expected(big));
  t.deepEqual(await streams[1].finish(), expected(odd));
  t.deepEqual(await streams[2].finish(), expected(small));
  t.deepEqual(await streams[3].finish(), expected(Buffer.alloc(0)));
  // an aborted stream's ring goes to the next stream, which still hashes right
  const dropped = threads.start();
  await update(dropped, randomBytes(1024 * 1024));
  dropped.abort();
  const next = threads.start();
  await feed(next, odd, [65_536]);
  t.deepEqual(await next.finish(), expected(odd));
});

test('streams fail when their threads end, and the next stream starts new threads', async (t) => {
  const threads = new DigestThreads();
  t.teardown(() => threads.close());
  const stream = threads.start();
  await update(stream, randomBytes(1024));
  await threads.close();
  await t.throwsAsync(stream.finish(), { message: 'the digest threads were closed' });
  await t.throwsAsync(update(stream, randomBytes(10)), { message: 'the digest threads were closed' });
  const again = threads.start();
  await update(again, Buffer.from('hello'));
  t.deepEqual(await again.finish(), expected(Buffer.from('hello')));
});
