import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { blobKindOf, type KindStores } from '../db/blob-storage.js';
import type { FileBlobStore } from '../db/blob-store.js';
import { S3BlobStore } from '../db/blob-store-s3.js';

export interface MigrationProgress {
  /** Called once the keys are counted. */
  start(total: number): void;
  /** Called after each key, copied or not. */
  step(): void;
  stop(): void;
}

export interface MigrationCounts {
  /** Keys of the local store. */
  total: number;
  copied: number;
  /** Already in the bucket with the same SHA-256. */
  present: number;
  /** Of a kind configured to stay local. */
  local: number;
  /** `key: reason` of each copy that read back with another SHA-256 (removed again) or could not be made. */
  failed: string[];
}

async function sha256Of(content: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of content) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The SHA-256 a migrated object carries as metadata. */
const shaMetadata = 'sha256';

/**
 * Copies every blob of the local store into the object store of its kind, verifying each copy by reading it back and
 * comparing SHA-256s. A blob already there with the same SHA-256 is not copied again, so a second run copies nothing.
 */
export async function migrateBlobs(local: FileBlobStore, targets: KindStores, progress?: MigrationProgress): Promise<MigrationCounts> {
  const keys: string[] = [];
  for await (const { key } of local.list()) keys.push(key);
  const counts: MigrationCounts = { total: keys.length, copied: 0, present: 0, local: 0, failed: [] };
  progress?.start(keys.length);
  try {
    for (const key of keys) {
      const target = targets[blobKindOf(key)];
      if (!(target instanceof S3BlobStore)) counts.local++;
      else await copyOne(local, target, key, counts);
      progress?.step();
    }
  } finally {
    progress?.stop();
  }
  return counts;
}

async function copyOne(local: FileBlobStore, target: S3BlobStore, key: string, counts: MigrationCounts): Promise<void> {
  const file = local.pathOf(key);
  const [sha256, { size }] = await Promise.all([sha256Of(createReadStream(file)), stat(file)]);
  const there = await target.head(key);
  if (there && there.size === size && (there.metadata[shaMetadata] ?? (await sha256Of(await target.get(key)))) === sha256) {
    counts.present++;
    return;
  }
  try {
    await target.put(key, createReadStream(file), { [shaMetadata]: sha256 });
    if ((await sha256Of(await target.get(key))) !== sha256) {
      await target.delete(key);
      counts.failed.push(`${key}: the copy read back with another SHA-256`);
      return;
    }
    counts.copied++;
  } catch (error) {
    counts.failed.push(`${key}: ${(error as Error).message}`);
  }
}
