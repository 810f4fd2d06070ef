import path from 'node:path';
import type { Readable } from 'node:stream';
import { FileBlobStore, type BlobStore, type DirectDownload } from './blob-store.js';
import type { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore, s3Client } from './blob-store-s3.js';
import type { Config } from './process/config.js';
import type { BlobKind } from './process/storage-config.js';

const attachmentKey = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Which kind a key belongs to, by the shape its writer gives it: attachment uuids, `avatar-…`, the rest packages'. */
export function blobKindOf(key: string): BlobKind {
  if (attachmentKey.test(key)) return 'attachments';
  if (key.startsWith('avatar-')) return 'avatars';
  return 'packages';
}

/** The store of each kind of blob, as `[storage]` and the kinds' sections place them. */
export type KindStores = Record<BlobKind, FileBlobStore | S3BlobStore>;

/** The kinds' stores behind one BlobStore: each key goes to the store of its kind. */
export class KindBlobStore implements BlobStore {
  constructor(readonly stores: KindStores) {}

  storeOf(key: string): FileBlobStore | S3BlobStore {
    return this.stores[blobKindOf(key)];
  }

  put(key: string, content: Readable): Promise<number> {
    return this.storeOf(key).put(key, content);
  }

  get(key: string): Promise<Readable> {
    return this.storeOf(key).get(key);
  }

  delete(key: string): Promise<void> {
    return this.storeOf(key).delete(key);
  }

  exists(key: string): Promise<boolean> {
    return this.storeOf(key).exists(key);
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.storeOf(from);
    const target = this.storeOf(to);
    if (source === target) return source.move(from, to);
    await target.put(to, await source.get(from));
    await source.delete(from);
  }

  async presign(key: string, download: DirectDownload): Promise<string | undefined> {
    const store = this.storeOf(key);
    return store instanceof S3BlobStore ? store.presign(key, download) : undefined;
  }

  /** Every key of every kind's store, each store listed once. */
  async *list(): AsyncGenerator<{ key: string; modified: Date }> {
    for (const store of new Set(Object.values(this.stores))) yield* store.list();
  }

  async check(): Promise<void> {
    for (const store of new Set(Object.values(this.stores))) await store.check();
  }
}

/** The local store's folder: `$HEARTH_DATA_DIR/blobs`, whatever kinds live there. */
export const localBlobRoot = (config: Config): string => path.join(config.dataDir, 'blobs');

/** Stores as configured: every kind local is today's FileBlobStore itself; otherwise each kind goes to its own store. */
export function buildBlobStore(config: Config): BlobStore {
  const local = new FileBlobStore(localBlobRoot(config));
  const targets = config.blobStorage;
  if (Object.values(targets).every((target) => target.type === 'local')) return local;
  return new KindBlobStore(kindStores(config, local));
}

export function kindStores(config: Config, local = new FileBlobStore(localBlobRoot(config))): KindStores {
  const targets = config.blobStorage;
  const stores = {} as KindStores;
  const clients = new Map<string, S3Client>();
  for (const kind of Object.keys(targets) as BlobKind[]) {
    const target = targets[kind];
    if (target.type === 'local') {
      stores[kind] = local;
      continue;
    }
    const same = JSON.stringify([target.endpoint, target.useSsl, target.location, target.accessKeyId, target.secretAccessKey]);
    if (!clients.has(same)) clients.set(same, s3Client(target));
    stores[kind] = new S3BlobStore(target, clients.get(same));
  }
  return stores;
}
