import { pipeline } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { z } from 'zod';
import type { BlobStore } from '../../../db/blob-store.js';
import { inTx } from '../../../db/data-source.js';
import { badRequest } from '../../../db/errors.js';
import {
  attachmentName, createAttachment, deleteAttachment, getReleaseAttachment, listReleaseAttachments, renameAttachment,
  storeAttachmentBlob, type StoredBlob,
} from '../../../db/models/releases/attachments.js';
import { getRelease } from '../../../db/models/releases/releases.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { renderAttachment } from '../../render/release.js';
import { releasesReader, releasesWriter, seesDrafts } from './releases.js';

export interface Upload {
  name: string;
  blob: StoredBlob;
}

/**
 * Streams an uploaded file into the blob store: the `attachment` field of a multipart/form-data body, or
 * the raw body (then `name` must be given). Nothing is held in memory beyond the parser's buffers.
 */
export async function receiveUpload(req: Request, blobs: BlobStore, name: string | undefined): Promise<Upload> {
  if (req.readableEnded) throw badRequest('send the file as multipart/form-data (field "attachment") or as a raw application/octet-stream body');
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
    const fileName = attachmentName(name);
    return { name: fileName, blob: await storeAttachmentBlob(blobs, req) };
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fieldSize: 64 * 1024, parts: 100 } });
  } catch (error) {
    throw badRequest(`malformed multipart/form-data request: ${(error as Error).message}`);
  }
  return new Promise<Upload>((resolve, reject) => {
    let stored: Promise<Upload> | undefined;
    let failure: unknown;
    parser.on('file', (field, file, info) => {
      if (field !== 'attachment' || stored) {
        file.resume();
        return;
      }
      try {
        const fileName = attachmentName(name || info.filename);
        stored = storeAttachmentBlob(blobs, file).then((blob) => ({ name: fileName, blob }));
      } catch (error) {
        stored = Promise.reject(error);
      }
      stored.catch((error: unknown) => {
        failure = error;
        parser.destroy(error as Error);
      });
    });
    pipeline(req, parser, (error) => {
      if (error) {
        stored?.then((upload) => blobs.delete(upload.blob.uuid)).catch(() => undefined);
        reject(failure ?? badRequest(`could not read the upload: ${error.message}`));
      } else if (!stored) {
        reject(badRequest('attachment is required: send the file in the multipart/form-data field "attachment"'));
      } else {
        stored.then(resolve, reject);
      }
    });
  });
}

const editAttachmentBody = z.object({ name: z.string().optional() });
const uploadQuery = z.object({ name: z.string().optional() });

export const releaseAssetRoutes = [
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/{id}/assets', operationId: 'repoListReleaseAttachments', summary: "List release's attachments", tag: 'repository',
    scope: 'read:repository', repo: releasesReader, ids: ['id'], responses: { 200: 'AttachmentList' },
    handle: async ({ deps, repo, ids }) => {
      const release = await getRelease(deps.db, repo.repo.id, ids.id, seesDrafts(repo));
      const attachments = (await listReleaseAttachments(deps.db, [release.id])).get(release.id) ?? [];
      return ok(attachments.map((a) => renderAttachment(a, deps.config)));
    },
  }),
  route({
    method: 'post', path: '/repos/{owner}/{repo}/releases/{id}/assets', operationId: 'repoCreateReleaseAttachment', summary: 'Create a release attachment', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, ids: ['id'], query: uploadQuery, responses: { 201: 'Attachment', 400: 'error' },
    handle: async ({ deps, repo, doer, ids, query, req }) => {
      const release = await getRelease(deps.db, repo.repo.id, ids.id, true);
      const upload = await receiveUpload(req, deps.blobs, query.name);
      const input = { repoId: repo.repo.id, releaseId: release.id, uploaderId: doer.id, name: upload.name };
      const attachment = await inTx(deps, (tx) => createAttachment(tx, deps.blobs, input, upload.blob));
      return created(renderAttachment(attachment, deps.config));
    },
  }),
  route({
    method: 'get', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoGetReleaseAttachment', summary: 'Get a release attachment', tag: 'repository',
    scope: 'read:repository', repo: releasesReader, ids: ['id', 'attachment_id'], responses: { 200: 'Attachment' },
    handle: async ({ deps, repo, ids }) => {
      const release = await getRelease(deps.db, repo.repo.id, ids.id, seesDrafts(repo));
      return ok(renderAttachment(await getReleaseAttachment(deps.db, release.id, ids.attachment_id), deps.config));
    },
  }),
  route({
    method: 'patch', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoEditReleaseAttachment', summary: 'Edit a release attachment', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, ids: ['id', 'attachment_id'], body: editAttachmentBody,
    responses: { 201: 'Attachment', 422: 'validationError' },
    handle: async ({ deps, repo, ids, body }) => {
      const release = await getRelease(deps.db, repo.repo.id, ids.id, true);
      const attachment = await getReleaseAttachment(deps.db, release.id, ids.attachment_id);
      const name = body.name;
      if (!name) return created(renderAttachment(attachment, deps.config));
      return created(renderAttachment(await inTx(deps, (tx) => renameAttachment(tx, attachment, name)), deps.config));
    },
  }),
  route({
    method: 'delete', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoDeleteReleaseAttachment', summary: 'Delete a release attachment', tag: 'repository',
    scope: 'write:repository', signedIn: true, repo: releasesWriter, ids: ['id', 'attachment_id'], responses: { 204: 'empty' },
    handle: async ({ deps, repo, ids }) => {
      const release = await getRelease(deps.db, repo.repo.id, ids.id, true);
      const attachment = await getReleaseAttachment(deps.db, release.id, ids.attachment_id);
      await inTx(deps, (tx) => deleteAttachment(tx, deps.blobs, attachment));
      return noContent();
    },
  }),
];
