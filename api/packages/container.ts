import { Readable } from 'node:stream';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { BlobStore } from '../../db/blob-store.js';
import { inTx } from '../../db/data-source.js';
import { HttpError } from '../../db/errors.js';
import { packageAccessOf } from '../../db/models/access.js';
import { storePackageUpload, withUpload, type PackageUpload } from '../../db/models/packages/blobs.js';
import {
  appendChunk, blobHolders, configMetadata, createUpload, deleteImageBlob, deleteManifest, digestOf, digestPattern, findImage, findImageBlob,
  findManifest, findUpload, imageNamePattern, listCatalog, listTags, mountBlob, ociError, parseManifest, putManifest, removeStaleUploads,
  removeUpload, saveBlob, tagPattern, type BlobUploadRow, type ImageRef, type OciCode,
} from '../../db/models/packages/container.js';
import { countDownload, uploadLimit } from '../../db/models/packages/packages.js';
import { accessModes } from '../../db/models/repos/repo-row.js';
import { findUserByName, findUsersByIds } from '../../db/models/users/users.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { scopeAllows } from '../../db/scopes.js';
import { authenticate } from '../auth/authenticate.js';
import type { Caller } from '../auth/caller.js';
import type { Deps } from '../deps.js';
import { declaredLength, drainRefused, readBody } from './body.js';
import { issueContainerToken, readContainerToken } from './container-token.js';
import { sendBlob } from './serve.js';

/** The distribution spec's limit on a manifest (Gitea's maxManifestSize). */
const maxManifestSize = 10 * 1024 * 1024;
/** An image configuration is read for its platform and labels; a larger one is left unread. */
const maxConfigRead = 1024 * 1024;

/**
 * Who calls a `/v2` route: a user, or nobody with a token (Gitea's ghost, who reads what anonymous callers may).
 * `scope` is that of the access token or registry token the call came with; `all` for a password.
 */
interface Doer {
  user: UserRow | null;
  scope: string;
}

interface Headers {
  location?: string;
  range?: string;
  uuid?: string;
  digest?: string;
  contentType?: string;
  contentLength?: number;
}

/** Gitea's setResponseHeaders: the legacy Docker headers every registry client reads. */
function answer(res: Response, status: number, h: Headers = {}): Response {
  if (h.location) res.setHeader('Location', h.location);
  if (h.range) res.setHeader('Range', h.range);
  if (h.contentType) res.setHeader('Content-Type', h.contentType);
  if (h.contentLength !== undefined) res.setHeader('Content-Length', String(h.contentLength));
  if (h.uuid) res.setHeader('Docker-Upload-UUID', h.uuid);
  if (h.digest) {
    res.setHeader('Docker-Content-Digest', h.digest);
    res.setHeader('ETag', `"${h.digest}"`);
  }
  res.setHeader('Docker-Distribution-Api-Version', 'registry/2.0');
  return res.status(status);
}

function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  answer(res, status, { contentType: 'application/json', contentLength: Buffer.byteLength(text) }).end(text);
}

const codeForStatus: Record<number, OciCode> = { 401: 'UNAUTHORIZED', 403: 'DENIED', 404: 'NAME_UNKNOWN', 413: 'DENIED' };

function firstQuery(req: Request, name: string): string {
  const value = req.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim() : '';
}

/** Whether the request carries a body to append (a PUT that ends an upload may or may not). */
function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** The chunks of an upload read back in order, as one stream. */
function concatenate(blobs: BlobStore, chunks: PackageUpload[]): Readable {
  return Readable.from((async function* () {
    for (const chunk of chunks) for await (const part of await blobs.get(chunk.key)) yield part as Buffer;
  })());
}

type Route =
  | { kind: 'uploads'; image: string }
  | { kind: 'upload'; image: string; uuid: string }
  | { kind: 'blob'; image: string; digest: string }
  | { kind: 'manifest'; image: string; reference: string }
  | { kind: 'tags'; image: string };

/** `{image}/...` after the owner; image names may hold slashes, so the fixed tail decides. */
function routeOf(rest: string): Route | null {
  let m = /^(.+)\/blobs\/uploads\/?$/.exec(rest);
  if (m) return { kind: 'uploads', image: m[1] };
  m = /^(.+)\/blobs\/uploads\/([^/]+)$/.exec(rest);
  if (m) return { kind: 'upload', image: m[1], uuid: m[2] };
  m = /^(.+)\/blobs\/([^/]+)$/.exec(rest);
  if (m) return { kind: 'blob', image: m[1], digest: m[2] };
  m = /^(.+)\/manifests\/([^/]+)$/.exec(rest);
  if (m) return { kind: 'manifest', image: m[1], reference: m[2] };
  m = /^(.+)\/tags\/list$/.exec(rest);
  if (m) return { kind: 'tags', image: m[1] };
  return null;
}

const writes: Record<Route['kind'], string[]> = {
  uploads: ['POST'], upload: ['GET', 'PATCH', 'PUT', 'DELETE'], blob: ['DELETE'], manifest: ['PUT', 'DELETE'], tags: [],
};
const allowed: Record<Route['kind'], string[]> = {
  uploads: ['POST'], upload: ['GET', 'PATCH', 'PUT', 'DELETE'], blob: ['GET', 'HEAD', 'DELETE'], manifest: ['GET', 'HEAD', 'PUT', 'DELETE'], tags: ['GET', 'HEAD'],
};

/**
 * Gitea's container registry (the OCI distribution spec) under `/v2`: the ping and token endpoints, blob uploads
 * (monolithic, chunked, cross-repository mounts), blobs, manifests and image indexes by tag and digest, tag lists
 * and the catalog. Errors are `{ "errors": [{ "code", "message" }] }`; a 401 names the token endpoint in a Bearer challenge.
 */
export function containerRegistry(deps: Deps): Router {
  const router = Router();
  const resolveCaller = authenticate(deps);
  const realm = `${new URL(deps.config.rootUrl).origin}/v2/token`;

  const fail = (res: Response, error: unknown): void => {
    if (res.headersSent) {
      deps.log.error({ err: error }, 'container registry request failed after its answer began');
      res.destroy();
      return;
    }
    const status = error instanceof HttpError ? error.status : 500;
    if (status === 500) deps.log.error({ err: error }, 'container registry request failed');
    const code = error instanceof HttpError ? (error.extra.code as OciCode | undefined) ?? codeForStatus[status] ?? 'UNSUPPORTED' : 'UNKNOWN';
    if (status === 401) res.setHeader('WWW-Authenticate', `Bearer realm="${realm}",service="container_registry",scope="*"`);
    sendJson(res, status, { errors: [{ code, message: status === 500 ? 'internal server error' : (error as Error).message }] });
    drainRefused(res.req);
  };

  /** The API's authentication (basic with a password or token, token headers), as a promise. */
  const apiCaller = (req: Request, res: Response): Promise<Caller> => new Promise((resolve, reject) => {
    void resolveCaller(req, res, ((error?: unknown) => (error ? reject(error) : resolve(res.locals.caller as Caller))) as NextFunction);
  });

  /** The caller: a registry token from `/v2/token`, or any credential the API accepts; null with none at all. */
  const doerOf = async (req: Request, res: Response): Promise<Doer | null> => {
    const authorization = req.get('authorization')?.trim() ?? '';
    const bearer = /^bearer\s+(\S+\.\S+\.\S+)$/i.exec(authorization);
    if (bearer) {
      const claims = readContainerToken(deps.config.security.secretKey, bearer[1]);
      if (!claims) throw ociError('UNAUTHORIZED', 'invalid or expired registry token');
      if (claims.userId === null) return { user: null, scope: claims.scope };
      const user = (await findUsersByIds(deps.db, [claims.userId])).get(claims.userId);
      if (!user || !user.is_active || user.prohibit_login || user.must_change_password) throw ociError('UNAUTHORIZED', 'the token\'s user may not sign in');
      return { user, scope: claims.scope };
    }
    const caller = await apiCaller(req, res);
    return caller.user ? { user: caller.user, scope: caller.scope } : null;
  };

  const required = (doer: Doer | null): Doer => {
    if (!doer) throw ociError('UNAUTHORIZED');
    return doer;
  };

  router.use((req, res) => {
    const work = async (): Promise<void> => {
      const path = req.path.replace(/\/+$/, '');
      if (path === '') {
        required(await doerOf(req, res));
        if (req.method !== 'GET' && req.method !== 'HEAD') throw ociError('UNSUPPORTED', 'The operation is unsupported', 405);
        answer(res, 200, { contentType: 'application/json', contentLength: 2 }).end(req.method === 'HEAD' ? undefined : '{}');
        return;
      }
      if (path === '/token') {
        if (req.method !== 'GET') throw ociError('UNSUPPORTED');
        await token(req, res);
        return;
      }
      if (path === '/_catalog') {
        const doer = required(await doerOf(req, res));
        await catalog(req, res, doer);
        return;
      }
      const parts = path.split('/').slice(1).map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          throw ociError('NAME_INVALID');
        }
      });
      const route = parts.length > 1 ? routeOf(parts.slice(1).join('/')) : null;
      if (!route) throw ociError('UNSUPPORTED', 'unknown registry endpoint');
      if (!allowed[route.kind].includes(req.method)) throw ociError('UNSUPPORTED', 'The operation is unsupported', 405);
      const doer = required(await doerOf(req, res));
      const owner = await findUserByName(deps.db, parts[0]);
      if (!owner) throw ociError('NAME_UNKNOWN', `owner ${parts[0]} does not exist`);
      const need = writes[route.kind].includes(req.method) ? 'write' : 'read';
      const mode = await packageAccessOf(deps.db, doer.user, owner);
      if (!scopeAllows(doer.scope, `${need}:package`) || mode < (need === 'write' ? accessModes.write : accessModes.read)) {
        throw ociError('UNAUTHORIZED', 'user should have specific permission or be a site admin');
      }
      if (!imageNamePattern.test(route.image)) throw ociError('NAME_INVALID');
      const ctx: Context = { req, res, owner, doer, image: route.image, base: `/v2/${owner.lower_name}/${route.image}` };
      switch (route.kind) {
        case 'uploads': return startUpload(ctx);
        case 'upload': return continueUpload(ctx, route.uuid);
        case 'blob': return blob(ctx, route.digest);
        case 'manifest': return manifest(ctx, route.reference);
        case 'tags': return tags(ctx);
      }
    };
    work().catch((error: unknown) => fail(res, error));
  });

  interface Context {
    req: Request;
    res: Response;
    owner: UserRow;
    doer: Doer;
    image: string;
    /** `/v2/{owner}/{image}`, for the Location headers clients follow. */
    base: string;
  }

  const imageRef = (ctx: Context): ImageRef => {
    if (!ctx.doer.user) throw ociError('UNAUTHORIZED');
    return { owner: ctx.owner, creator: ctx.doer.user, image: ctx.image };
  };

  // ---- token and catalog

  /** Gitea's Authenticate: a registry token for the caller (anonymous callers get one too) holding a package scope. */
  async function token(req: Request, res: Response): Promise<void> {
    const doer = await doerOf(req, res);
    if (doer && !scopeAllows(doer.scope, 'read:package')) throw ociError('UNAUTHORIZED', 'no package scope');
    const issued = issueContainerToken(deps.config.security.secretKey, doer ? { userId: doer.user?.id ?? null, scope: doer.scope } : { userId: null, scope: 'read:package' });
    sendJson(res, 200, { token: issued.token, access_token: issued.token, expires_in: issued.expiresIn, issued_at: issued.issuedAt });
  }

  async function catalog(req: Request, res: Response, doer: Doer): Promise<void> {
    let n = Number.parseInt(firstQuery(req, 'n'), 10);
    if (!(n > 0 && n <= 100)) n = 100;
    const names = await listCatalog(deps.db, doer.user, n, firstQuery(req, 'last'));
    if (names.length === n) res.setHeader('Link', `</v2/_catalog?${new URLSearchParams({ last: names[names.length - 1], n: String(n) })}>; rel="next"`);
    sendJson(res, 200, { repositories: names });
  }

  // ---- blob uploads

  async function startUpload(ctx: Context): Promise<void> {
    const { req, res } = ctx;
    const ref = imageRef(ctx);
    const mount = firstQuery(req, 'mount');
    if (mount) {
      for (const { blob, ownerId } of await blobHolders(deps.db, mount, firstQuery(req, 'from'))) {
        const holder = ownerId === ctx.owner.id ? ctx.owner : (await findUsersByIds(deps.db, [ownerId])).get(ownerId);
        if (!holder || (await packageAccessOf(deps.db, ref.creator, holder)) < accessModes.read) continue;
        await inTx(deps, (tx) => mountBlob(tx, ref, blob));
        answer(res, 201, { location: `${ctx.base}/blobs/${mount}`, digest: mount, contentLength: 0 }).end();
        return;
      }
    }
    const digest = firstQuery(req, 'digest');
    if (digest) {
      if (!digestPattern.test(digest)) throw ociError('DIGEST_INVALID');
      const upload = await storePackageUpload(deps, req, await uploadLimit(deps.db, deps.config, ctx.owner, 'container', declaredLength(req)));
      await withUpload(deps.blobs, upload, async () => {
        if (`sha256:${upload.sha256}` !== digest) throw ociError('DIGEST_INVALID');
        await inTx(deps, (tx) => saveBlob(tx, deps, ref, upload));
      });
      answer(res, 201, { location: `${ctx.base}/blobs/${digest}`, digest, contentLength: 0 }).end();
      return;
    }
    await removeStaleUploads(deps.db, deps.blobs);
    const upload = await createUpload(deps.db, ctx.owner.id, ctx.image);
    answer(res, 202, { location: `${ctx.base}/blobs/uploads/${upload.id}`, range: '0-0', uuid: upload.id, contentLength: 0 }).end();
  }

  /** Streams the request body into the blob store as the upload's next chunk; the row changes only if nobody else appended meanwhile. */
  async function appendBody(ctx: Context, upload: BlobUploadRow): Promise<BlobUploadRow> {
    const limit = await uploadLimit(deps.db, deps.config, ctx.owner, 'container', declaredLength(ctx.req), upload.bytes_received);
    const chunk = await storePackageUpload(deps, ctx.req, limit);
    const contentRange = ctx.req.get('content-range');
    const range = contentRange ? /^(?:bytes[ =])?(\d+)-(\d+)/.exec(contentRange) : null;
    if (range && Number(range[2]) - Number(range[1]) + 1 !== chunk.size) {
      await deps.blobs.delete(chunk.key);
      throw ociError('SIZE_INVALID', 'the Content-Range does not match the bytes sent', 416);
    }
    const updated = await appendChunk(deps.db, upload, chunk);
    if (!updated) {
      await deps.blobs.delete(chunk.key);
      throw ociError('BLOB_UPLOAD_INVALID', 'the upload changed while this chunk was sent', 416);
    }
    return updated;
  }

  async function continueUpload(ctx: Context, uuid: string): Promise<void> {
    const { req, res } = ctx;
    let upload = await findUpload(deps.db, uuid, ctx.owner.id, ctx.image);
    if (!upload) throw ociError('BLOB_UPLOAD_UNKNOWN');
    const location = `${ctx.base}/blobs/uploads/${upload.id}`;
    switch (req.method) {
      case 'GET':
        answer(res, 204, { location, range: `0-${upload.bytes_received}`, uuid: upload.id }).end();
        return;
      case 'DELETE':
        if (!(await removeUpload(deps.db, deps.blobs, upload.id))) throw ociError('BLOB_UPLOAD_UNKNOWN');
        answer(res, 204).end();
        return;
      case 'PATCH': {
        const contentRange = req.get('content-range');
        if (contentRange) {
          const range = /^(?:bytes[ =])?(\d+)-(\d+)$/.exec(contentRange.trim());
          if (!range) throw ociError('BLOB_UPLOAD_INVALID', 'invalid Content-Range');
          if (Number(range[1]) !== upload.bytes_received) throw ociError('BLOB_UPLOAD_INVALID', undefined, 416);
        } else if (upload.bytes_received !== 0) {
          throw ociError('BLOB_UPLOAD_INVALID', 'Stream uploads after first write are not allowed');
        }
        upload = await appendBody(ctx, upload);
        answer(res, 202, { location, range: `0-${Math.max(upload.bytes_received - 1, 0)}`, uuid: upload.id, contentLength: 0 }).end();
        return;
      }
      case 'PUT': {
        const digest = firstQuery(req, 'digest');
        if (!digestPattern.test(digest)) throw ociError('DIGEST_INVALID');
        if (hasBody(req)) upload = await appendBody(ctx, upload);
        await finishUpload(ctx, upload, digest);
        answer(res, 201, { location: `${ctx.base}/blobs/${digest}`, digest, contentLength: 0 }).end();
        return;
      }
    }
  }

  /** Several chunks streamed through once more into one blob; the chunks' files are closed whatever happens. */
  async function joinChunks(ctx: Context, chunks: PackageUpload[]): Promise<PackageUpload> {
    const joined = chunks.length === 0 ? Readable.from([]) : concatenate(deps.blobs, chunks);
    try {
      return await storePackageUpload(deps, joined, await uploadLimit(deps.db, deps.config, ctx.owner, 'container'));
    } finally {
      joined.destroy();
    }
  }

  /**
   * The upload's chunks become one blob: a single chunk is the blob already (hashed as it came), several are
   * streamed through once more into one. A digest that does not match, or any failure, ends the upload.
   */
  async function finishUpload(ctx: Context, upload: BlobUploadRow, digest: string): Promise<void> {
    const ref = imageRef(ctx);
    try {
      const whole = upload.chunks.length === 1 ? upload.chunks[0] : await joinChunks(ctx, upload.chunks);
      await withUpload(deps.blobs, whole, async () => {
        if (`sha256:${whole.sha256}` !== digest) throw ociError('DIGEST_INVALID');
        await inTx(deps, async (tx) => {
          if (!(await removeUpload(tx, deps.blobs, upload.id))) throw ociError('BLOB_UPLOAD_UNKNOWN');
          await saveBlob(tx, deps, ref, whole);
        });
      });
    } catch (error) {
      await removeUpload(deps.db, deps.blobs, upload.id);
      throw error;
    }
  }

  // ---- blobs

  async function blob(ctx: Context, digest: string): Promise<void> {
    const { req, res } = ctx;
    if (req.method === 'DELETE') {
      if (!digestPattern.test(digest)) throw ociError('BLOB_UNKNOWN');
      await inTx(deps, (tx) => deleteImageBlob(tx, deps.blobs, ctx.owner.id, ctx.image, digest));
      answer(res, 202, { contentLength: 0 }).end();
      return;
    }
    const found = await findImageBlob(deps.db, ctx.owner.id, ctx.image, digest);
    if (!found) throw ociError('BLOB_UNKNOWN');
    answer(res, 200, { digest: digestOf(found), contentLength: found.size, contentType: 'application/octet-stream' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await sendBlob(res, deps, found.blob_key);
  }

  // ---- manifests

  async function manifest(ctx: Context, reference: string): Promise<void> {
    const { req, res } = ctx;
    const isDigest = digestPattern.test(reference);
    if (req.method === 'PUT') {
      if (!isDigest && !tagPattern.test(reference)) throw ociError('MANIFEST_INVALID', 'Tag is invalid');
      const ref = imageRef(ctx);
      const bytes = await readBody(req, maxManifestSize).catch((error: unknown) => {
        if (error instanceof HttpError && error.status === 413) throw ociError('MANIFEST_INVALID', 'Manifest exceeds maximum size', 413);
        throw error;
      });
      const parsed = parseManifest(bytes, req.get('content-type'));
      let config = {};
      if (parsed.kind === 'image') {
        const configBlob = await findImageBlob(deps.db, ctx.owner.id, ctx.image, parsed.config.digest);
        if (!configBlob) throw ociError('MANIFEST_BLOB_UNKNOWN', `blob ${parsed.config.digest} is unknown to the image`);
        config = configMetadata(configBlob.size <= maxConfigRead ? await readBody(await deps.blobs.get(configBlob.blob_key), maxConfigRead) : null);
      }
      const upload = await storePackageUpload(deps, Readable.from([bytes]));
      const digest = await withUpload(deps.blobs, upload, async () => {
        if (isDigest && `sha256:${upload.sha256}` !== reference) throw ociError('DIGEST_INVALID');
        return inTx(deps, (tx) => putManifest(tx, deps, { ...ref, reference, manifest: parsed, upload, config }));
      });
      answer(res, 201, { location: `${ctx.base}/manifests/${reference}`, digest, contentLength: 0 }).end();
      return;
    }
    if (req.method === 'DELETE') {
      const doer = imageRef(ctx).creator;
      const deleted = await inTx(deps, (tx) => deleteManifest(tx, deps.blobs, ctx.owner.id, ctx.image, reference, doer));
      if (!deleted) throw ociError('MANIFEST_UNKNOWN');
      answer(res, 202, { contentLength: 0 }).end();
      return;
    }
    const found = await findManifest(deps.db, ctx.owner.id, ctx.image, reference);
    if (!found) throw ociError('MANIFEST_UNKNOWN');
    const { blob: stored } = found.file;
    answer(res, 200, { digest: digestOf(stored), contentType: found.metadata.media_type, contentLength: stored.size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (!isDigest) await countDownload(deps.db, found.version.id);
    await sendBlob(res, deps, stored.blob_key);
  }

  // ---- tags

  async function tags(ctx: Context): Promise<void> {
    const { req, res } = ctx;
    const pkg = await findImage(deps.db, ctx.owner.id, ctx.image);
    if (!pkg) throw ociError('NAME_UNKNOWN');
    const nText = firstQuery(req, 'n');
    const n = nText === '' ? undefined : Math.max(Number.parseInt(nText, 10) || 0, 0);
    const names = await listTags(deps.db, pkg.id, n, firstQuery(req, 'last'));
    if (names.length > 0) {
      const next = new URLSearchParams({ last: names[names.length - 1], ...(n ? { n: String(n) } : {}) });
      res.setHeader('Link', `<${ctx.base}/tags/list?${next}>; rel="next"`);
    }
    sendJson(res, 200, { name: `${ctx.owner.lower_name}/${ctx.image}`, tags: names });
  }

  return router;
}
