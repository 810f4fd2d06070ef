import type { Readable } from 'node:stream';
import { badRequest, tooLarge } from '../../db/errors.js';

/** A request body read whole, refused with a 413 past `limit` bytes: for the small documents registries send. */
export async function readBody(req: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge('the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function readJson(req: Readable, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
}
