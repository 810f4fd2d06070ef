import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { KindBlobStore } from '../../db/blob-storage.js';
import { FileBlobStore } from '../../db/blob-store.js';
import { S3BlobStore } from '../../db/blob-store-s3.js';
import type { TestHearth } from './hearth.js';

/**
 * Everything the blob store holds, whichever store it is: files under the local root (temporary ones under `.tmp/`
 * included), or the objects of the kinds' buckets (`<base path><key>`) and `uploads/<id>` for each multipart upload
 * neither completed nor aborted.
 */
export async function storedBlobs(hearth: TestHearth): Promise<string[]> {
  const blobs = hearth.deps.blobs;
  if (blobs instanceof FileBlobStore) {
    if (!existsSync(blobs.root)) return [];
    const entries = await readdir(blobs.root, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.relative(blobs.root, path.join(e.parentPath, e.name))).sort();
  }
  if (!(blobs instanceof KindBlobStore)) throw new Error('an unknown blob store');
  const found: string[] = [];
  for (const store of new Set(Object.values(blobs.stores))) {
    if (store instanceof S3BlobStore) for await (const key of store.keys()) found.push(`${store.target.basePath}${key}`);
  }
  for (const id of (await hearth.s3?.uploadsInProgress()) ?? []) found.push(`uploads/${id}`);
  return found.sort();
}

export async function blobBytes(hearth: TestHearth, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await hearth.deps.blobs.get(key)) as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Which store the tests run on: HEARTH_TEST_STORAGE=minio puts every Hearth of a test run on a fresh s3rver. */
export const testStorage = process.env.HEARTH_TEST_STORAGE === 'minio' ? 'minio' : 'local';
