import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import type { BlobStore } from '../../blob-store.js';
import type { Tx } from '../../data-source.js';
import { HttpError } from '../../errors.js';
import { updateAvatar, type AvatarContext } from '../orgs/orgs.js';
import { imageMimeTypes, imageTypeOf, maxAvatarBytes } from '../repos/repo-avatars.js';
import type { UserRow } from './user-row.js';

/**
 * Sets a user's own avatar: the image rules of repository avatars, stored in the blob store the way organizations'
 * avatars are (both are rows of the user table), so one implementation serves and removes both.
 */
export async function setUserAvatar(tx: Tx, ctx: AvatarContext, user: UserRow, image: Buffer): Promise<UserRow> {
  return updateAvatar(tx, ctx, user, image);
}

/** The blob key an uploaded avatar is stored under (see updateAvatar); the public name of the image too. */
const uploadedName = /^avatar-\d+-[0-9a-f]{32}$/;
/** The MD5 hex of an e-mail address (or of another avatar value): such users get a generated image. */
const generatedName = /^[0-9a-f]{32}$/;

export interface AvatarImage {
  bytes: Buffer;
  type: string;
}

/**
 * The image behind `/avatars/{name}`: an uploaded avatar by its blob key, or the generated image for a hash;
 * null for any other name or an avatar that no longer exists.
 */
export async function readAvatarImage(blobs: BlobStore, name: string): Promise<AvatarImage | null> {
  if (generatedName.test(name)) return { bytes: generatedAvatar(name), type: 'image/png' };
  if (!uploadedName.test(name)) return null;
  let stream: Readable;
  try {
    stream = await blobs.get(name);
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxAvatarBytes) throw new Error(`stored avatar ${name} is larger than an avatar may be`);
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  const type = imageTypeOf(bytes);
  return { bytes, type: type ? imageMimeTypes[type] : 'application/octet-stream' };
}

const cells = 5;
const cellPixels = 36;
const margin = 27;
const side = cells * cellPixels + 2 * margin;

/**
 * A deterministic identicon for a hash: a 5×5 grid, mirrored left to right, in one colour on a light ground,
 * written as a 2-colour indexed PNG (234 pixels square, a few hundred bytes).
 */
export function generatedAvatar(hash: string): Buffer {
  const seed = createHash('sha256').update(hash).digest();
  const [red, green, blue] = hslToRgb((seed.readUInt16BE(0) % 360) / 360, 0.55, 0.5);
  const filled = (row: number, column: number): boolean => {
    const bit = row * 3 + Math.min(column, cells - 1 - column);
    return (seed[2 + (bit >> 3)] >> (bit & 7)) & 1 ? true : false;
  };
  const rows: Buffer[] = [];
  for (let y = 0; y < side; y++) {
    const line = Buffer.alloc(side + 1);
    const row = Math.floor((y - margin) / cellPixels);
    for (let x = 0; x < side; x++) {
      const column = Math.floor((x - margin) / cellPixels);
      const inside = y >= margin && x >= margin && row < cells && column < cells;
      line[x + 1] = inside && filled(row, column) ? 1 : 0;
    }
    rows.push(line);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 3, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('PLTE', Buffer.from([0xf0, 0xf0, 0xf0, red, green, blue])),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function hslToRgb(hue: number, saturation: number, lightness: number): [number, number, number] {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const channel = (n: number): number => {
    const k = (n + hue * 12) % 12;
    return Math.round(255 * (lightness - chroma / 2 * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}
