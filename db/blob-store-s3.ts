import {
  CopyObjectCommand, CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand,
  ListObjectsV2Command, S3Client, S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Transform, type Readable } from 'node:stream';
import { assertBlobKey, isBlobKey, type BlobStore, type DirectDownload } from './blob-store.js';
import { notFound } from './errors.js';
import type { MinioTarget } from './process/storage-config.js';

/** Parts of a multipart upload: at most `queueSize` of them are held in memory at once, whatever the size of the upload. */
const partSize = 8 * 1024 * 1024;
const queueSize = 2;
/** How long a presigned download address stays good (Gitea's five minutes). */
const presignedSeconds = 5 * 60;

/** One client per store: its settings (and the secret key) go to the SDK and nowhere else. */
export function s3Client(target: MinioTarget): S3Client {
  return new S3Client({
    endpoint: `${target.useSsl ? 'https' : 'http'}://${target.endpoint}`,
    region: target.location,
    forcePathStyle: true,
    // with no key configured, the SDK's own chain (environment, instance role) supplies one
    credentials: target.accessKeyId ? { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey } : undefined,
    // checksums only where S3 requires them: many S3-compatible stores reject the newer aws-chunked trailers
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** No such key, or no bucket yet. */
const missing = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || ['NoSuchKey', 'NoSuchBucket', 'NotFound'].includes(error.name));

/**
 * Blobs as objects of an S3-compatible store under `<basePath><key>`. Uploads stream in parts (aborted on a failed
 * request, so no part is left behind), downloads stream, and the bucket is made at the first write when missing.
 */
export class S3BlobStore implements BlobStore {
  private bucketReady: Promise<void> | undefined;

  constructor(readonly target: MinioTarget, readonly client: S3Client = s3Client(target)) {}

  get bucket(): string {
    return this.target.bucket;
  }

  objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.target.basePath}${key}`;
  }

  /** `metadata` goes with the object as `x-amz-meta-*` headers. */
  async put(key: string, content: Readable, metadata?: Record<string, string>): Promise<number> {
    const objectKey = this.objectKey(key);
    let size = 0;
    let failure: unknown;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // listening before any wait: a source failing while the bucket is made must still fail the upload
    const failed = (error: Error): void => {
      failure ??= error;
      counted.destroy(error);
    };
    // its failure reaches the caller through `failure` or the upload, whichever comes first
    counted.on('error', () => undefined);
    if (content.errored) failed(content.errored);
    else content.on('error', failed);
    content.pipe(counted);
    try {
      await this.ensureBucket();
      const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: objectKey, Body: counted, Metadata: metadata }, partSize, queueSize, leavePartsOnError: false });
      await upload.done();
      return size;
    } catch (error) {
      content.unpipe(counted);
      content.destroy();
      counted.destroy();
      // the request's own failure (a 413, a dropped client) matters more than what the store said after it
      throw failure ?? error;
    } finally {
      content.off('error', failed);
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return answer.Body as Readable;
    } catch (error) {
      if (missing(error)) throw notFound(`blob ${key} does not exist`);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  /** The object's size and metadata, or undefined when there is none. */
  async head(key: string): Promise<{ size: number; metadata: Record<string, string> } | undefined> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { size: answer.ContentLength ?? 0, metadata: answer.Metadata ?? {} };
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (error) {
      // no bucket yet: nothing to delete
      if (!missing(error)) throw error;
    }
  }

  /** A copy inside the store, then the old key removed; content already at `to` is not written again. */
  async move(from: string, to: string): Promise<void> {
    const source = this.objectKey(from);
    if (!(await this.exists(to))) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.objectKey(to), CopySource: `${this.bucket}/${encodeURIComponent(source).replace(/%2F/g, '/')}` }));
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: source }));
  }

  async presign(key: string, download: DirectDownload): Promise<string | undefined> {
    if (!this.target.serveDirect) return undefined;
    const filename = download.filename.replace(/["\\\r\n]/g, '_');
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: download.inline ? undefined : `attachment; filename="${filename}"`,
      ResponseContentType: download.contentType,
    });
    return getSignedUrl(this.client, command, { expiresIn: presignedSeconds });
  }

  /** Throws when the bucket cannot be reached (for health checks). */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      // the store answers; the bucket is made at the first write
      if (!missing(error)) throw error;
    }
  }

  /** Every blob under this store's base path, with when it was written. */
  async *list(): AsyncGenerator<{ key: string; modified: Date }> {
    for await (const object of this.objects()) if (isBlobKey(object.key)) yield object;
  }

  /** Every key under this store's base path, without the prefix, blob or not. */
  async *keys(): AsyncGenerator<string> {
    for await (const object of this.objects()) yield object.key;
  }

  private async *objects(): AsyncGenerator<{ key: string; modified: Date }> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.target.basePath, ContinuationToken: token }));
      } catch (error) {
        if (missing(error)) return;
        throw error;
      }
      for (const entry of page.Contents ?? []) {
        if (entry.Key) yield { key: entry.Key.slice(this.target.basePath.length), modified: entry.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private ensureBucket(): Promise<void> {
    this.bucketReady ??= this.makeBucket().catch((error: unknown) => {
      this.bucketReady = undefined;
      throw error;
    });
    return this.bucketReady;
  }

  private async makeBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (error) {
      if (!missing(error)) throw error;
    }
    const location = this.target.location === 'us-east-1' ? undefined : { LocationConstraint: this.target.location as never };
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket, CreateBucketConfiguration: location }));
    } catch (error) {
      // another host made it first
      if (!(error instanceof S3ServiceException && (error.name === 'BucketAlreadyOwnedByYou' || error.name === 'BucketAlreadyExists'))) throw error;
    }
  }
}
