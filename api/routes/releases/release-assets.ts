import { z } from 'zod';
import { inTx } from '../../../db/data-source.js';
import {
  createAttachment, deleteAttachment, getReleaseAttachment, listReleaseAttachments, renameAttachment,
} from '../../../db/models/releases/attachments.js';
import { getRelease } from '../../../db/models/releases/releases.js';
import { created, noContent, ok, route } from '../../http/route.js';
import { receiveUpload } from '../../http/upload.js';
import { renderAttachment } from '../../render/release.js';
import { releasesReader, releasesWriter, seesDrafts } from './releases.js';

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
