import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';

/** The part of s3rver (a Koa app speaking the S3 REST API, objects as files) the tests use, its Koa side included. */
interface S3rverApp {
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void)[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
}
// the SDK's notice that its releases after January 2027 need Node 22 would fill every test's output
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverApp;

/** s3rver's account; any other key is refused with a signature error. */
export const s3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  /** host:port, as MINIO_ENDPOINT takes it. */
  endpoint: string;
  bucket: string;
  /** Where the server keeps its objects. */
  directory: string;
  /** HEARTH__storage__* settings putting every kind of blob into this server's bucket. */
  settings(extra?: Record<string, string>): Record<string, string>;
  /** Multipart uploads begun and neither completed nor aborted (their parts are on disk). */
  uploadsInProgress(): Promise<string[]>;
}

/**
 * A real S3-protocol server on a free loopback port over a temporary folder, closed when the test (file) ends.
 * s3rver does not implement AbortMultipartUpload, which Hearth's failed uploads send; the helper answers it the way
 * S3 does (the upload's parts removed, 204), from the folder where s3rver keeps them.
 */
export async function startS3Server(t: ExecutionContext, bucket = 'hearth-test'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'hearth-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const uploadsOf = (name: string): string => path.join(directory, name, '._S3rver_uploads');
  server.middleware.unshift(async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method === 'DELETE' && uploadId && /^[\w-]+$/.test(uploadId)) {
      await rm(path.join(uploadsOf(ctx.path.split('/')[1]), uploadId), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    await next();
  });
  const { port } = await server.run();
  t.teardown(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const endpoint = `127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    settings: (extra = {}) => ({
      HEARTH__storage__STORAGE_TYPE: 'minio',
      HEARTH__storage__MINIO_ENDPOINT: endpoint,
      HEARTH__storage__MINIO_ACCESS_KEY_ID: s3Credentials.accessKeyId,
      HEARTH__storage__MINIO_SECRET_ACCESS_KEY: s3Credentials.secretAccessKey,
      HEARTH__storage__MINIO_BUCKET: bucket,
      ...extra,
    }),
    async uploadsInProgress() {
      try {
        return await readdir(uploadsOf(bucket));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
  };
}
