import { finished } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { inTx } from '../../db/data-source.js';
import { badRequest, notFound } from '../../db/errors.js';
import { storePackageUpload, withUpload, type PackageUpload, type UploadLimit, type UploadServices } from '../../db/models/packages/blobs.js';
import { addFile, countDownload, createVersion, findFile, findPackage, findVersion, listFiles, listVersions, uploadLimit } from '../../db/models/packages/packages.js';
import { checkPypiUpload, normalizePypiName } from '../../db/models/packages/pypi.js';
import type { Deps } from '../deps.js';
import { plainTextError, Registry, writer } from './registry.js';
import { serveFile } from './serve.js';

interface Received {
  fields: Record<string, string>;
  filename: string | null;
  upload: PackageUpload | null;
}

/**
 * Reads twine's multipart form: the text fields, and the `content` file streamed into the blob store. On a failure the
 * request is let go unread (the registry reads the rest past while answering) and nothing stays in the store.
 */
function receiveForm(req: Request, services: UploadServices, limit: UploadLimit): Promise<Received> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: 1024 * 1024, parts: 200, files: 1 } });
  } catch (error) {
    return Promise.reject(badRequest(`malformed multipart/form-data request: ${(error as Error).message}`));
  }
  const fields: Record<string, string> = {};
  let filename: string | null = null;
  let stored: Promise<PackageUpload> | undefined;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.destroy();
      stored?.then((upload) => services.blobs.delete(upload.key)).catch(() => undefined);
      reject(error);
    };
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, file, info) => {
      if (field !== 'content' || stored) {
        file.resume();
        return;
      }
      filename = info.filename ?? null;
      stored = storePackageUpload(services, file, limit);
      stored.catch(fail);
    });
    parser.on('error', (error: Error) => fail(badRequest(`could not read the upload: ${error.message}`)));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      if (!stored) resolve({ fields, filename, upload: null });
      else stored.then((upload) => resolve({ fields, filename, upload }), reject);
    });
    finished(req, { writable: false }, (error) => {
      if (error) fail(badRequest(`could not read the upload: ${error.message}`));
    });
    req.pipe(parser);
  });
}

const escapeHtml = (text: string): string => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Gitea's PyPI registry: twine's upload form, the PEP 503 simple index with hashes, downloads; errors in plain text. */
export function pypiRegistry(deps: Deps): Registry {
  const registry = new Registry(deps, 'pypi', plainTextError);

  registry.post('/', 'write', async (ctx) => {
    const doer = writer(ctx);
    const received = await receiveForm(ctx.req, deps, await uploadLimit(deps.db, deps.config, ctx.owner, 'pypi'));
    if (!received.upload) throw badRequest('the file is missing: send it in the "content" field');
    const upload = received.upload;
    await withUpload(deps.blobs, upload, async () => {
      const input = checkPypiUpload(received.fields, received.filename);
      if (input.sha256 && input.sha256 !== upload.sha256) throw badRequest('the file does not match its sha256_digest');
      await inTx(deps, async (tx) => {
        const { pkg, version } = await createVersion(tx, deps.config, {
          owner: ctx.owner, creator: doer, type: 'pypi', name: input.name, version: input.version, metadata: input.metadata,
        }, 'reuse');
        await addFile(tx, deps, ctx.owner, pkg, version, upload, { name: input.filename });
      });
    });
    ctx.res.status(201).end();
  });

  registry.get('/simple/:name', 'read', async (ctx) => {
    const name = normalizePypiName(String(ctx.req.params.name));
    const pkg = await findPackage(deps.db, ctx.owner.id, 'pypi', name);
    const versions = pkg ? await listVersions(deps.db, pkg.id) : [];
    if (!pkg || versions.length === 0) throw notFound('package does not exist', 'package does not exist');
    const files = await listFiles(deps.db, versions.map((v) => v.id));
    const links = versions.flatMap((version) => (files.get(version.id) ?? []).map((file) => {
      const href = `${ctx.base}/files/${encodeURIComponent(pkg.name)}/${encodeURIComponent(version.version)}/${encodeURIComponent(file.name)}#sha256=${file.blob.hash_sha256}`;
      const requires = String(version.metadata.requires_python ?? '');
      return `    <a href="${escapeHtml(href)}"${requires ? ` data-requires-python="${escapeHtml(requires)}"` : ''}>${escapeHtml(file.name)}</a><br/>`;
    }));
    const title = `Links for ${escapeHtml(pkg.name)}`;
    ctx.res.status(200).type('text/html').send(`<!DOCTYPE html>\n<html>\n  <head><title>${title}</title></head>\n  <body>\n    <h1>${title}</h1>\n${links.join('\n')}\n  </body>\n</html>\n`);
  });

  registry.get('/files/:name/:version/:filename', 'read', async (ctx) => {
    const pkg = await findPackage(deps.db, ctx.owner.id, 'pypi', normalizePypiName(String(ctx.req.params.name)));
    const version = pkg && (await findVersion(deps.db, pkg.id, String(ctx.req.params.version)));
    const file = version && (await findFile(deps.db, version.id, String(ctx.req.params.filename)));
    if (!version || !file) throw notFound('package file does not exist', 'package file does not exist');
    await countDownload(deps.db, version.id);
    await serveFile(ctx.res, deps, file);
  });

  return registry;
}
