import { createWriteStream } from 'node:fs';
import { access, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { notFound } from './errors.js';

/** How a presigned download names its file. */
export interface DirectDownload {
  filename: string;
  contentType?: string;
  /** Shown in place rather than saved (no `Content-Disposition: attachment`). */
  inline?: boolean;
}

/**
 * Where uploaded files (attachments, packages, avatars) live. Content is always streamed, never held whole in
 * memory, so the store can move to S3-compatible object storage behind the same operations.
 */
export interface BlobStore {
  /** Stores the stream's bytes under `key` and answers their count; nothing is visible under `key` until it is complete. */
  put(key: string, content: Readable): Promise<number>;
  /** The stored bytes; a missing key throws a 404 before any byte is read. */
  get(key: string): Promise<Readable>;
  /** Removes the key; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Gives the bytes of `from` the key `to` (an upload moved into place once its content is known). */
  move(from: string, to: string): Promise<void>;
  /** Every stored key with when its bytes were last written (uploads still being written are not listed). */
  list(): AsyncGenerator<{ key: string; modified: Date }>;
  exists(key: string): Promise<boolean>;
  /** An address the client may fetch the bytes from itself (SERVE_DIRECT), or undefined: serve them through Hearth. */
  presign?(key: string, download: DirectDownload): Promise<string | undefined>;
  /** Throws when the store cannot be reached. */
  check?(): Promise<void>;
}

const safeKey = /^[A-Za-z0-9][A-Za-z0-9._-]{2,127}$/;

/** Whether a name is one a blob may be stored under. */
export const isBlobKey = (key: string): boolean => safeKey.test(key);

export function assertBlobKey(key: string): void {
  if (!safeKey.test(key)) throw new Error(`invalid blob key: ${key}`);
}

/** Blobs as files: `<root>/<first two characters of the key>/<key>`, written to a temporary file and renamed into place. */
export class FileBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key.slice(0, 2), key);
  }

  async put(key: string, content: Readable): Promise<number> {
    const target = this.pathOf(key);
    const scratch = path.join(this.root, '.tmp');
    await mkdir(scratch, { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(scratch, `${key}.${randomBytes(6).toString('hex')}`);
    try {
      // a deep buffer lets the stream gather socket-sized chunks into one writev
      await pipeline(content, createWriteStream(temp, { flags: 'wx', flush: true, highWaterMark: 1024 * 1024 }));
      const { size } = await stat(temp);
      await rename(temp, target);
      return size;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      const handle = await open(this.pathOf(key), 'r');
      return handle.createReadStream({ highWaterMark: 1024 * 1024 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`blob ${key} does not exist`);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(this.pathOf(from), target);
  }

  async exists(key: string): Promise<boolean> {
    return access(this.pathOf(key)).then(() => true, () => false);
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root);
  }

  async *list(): AsyncGenerator<{ key: string; modified: Date }> {
    let shards: string[];
    try {
      shards = (await readdir(this.root)).filter((name) => name !== '.tmp').sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const shard of shards) {
      for (const key of (await readdir(path.join(this.root, shard)).catch(() => [] as string[])).sort()) {
        if (!safeKey.test(key) || key.slice(0, 2) !== shard) continue;
        const info = await stat(path.join(this.root, shard, key)).catch(() => null);
        if (info?.isFile()) yield { key, modified: info.mtime };
      }
    }
  }
}
