import { pipeline } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import type { BlobStore } from '../../db/blob-store.js';
import { badRequest, HttpError } from '../../db/errors.js';
import { attachmentName, storeAttachmentBlob, type StoredBlob, type UploadRules } from '../../db/models/releases/attachments.js';

export interface Upload {
  name: string;
  blob: StoredBlob;
}

/**
 * Streams an uploaded file into the blob store: the `attachment` field of a multipart/form-data body, or
 * the raw body (then `name` must be given). Nothing is held in memory beyond the parser's buffers and the first bytes
 * kept for sniffing; past `rules.maxBytes` it is a 413. Used for release assets and issue and comment attachments.
 */
export async function receiveUpload(req: Request, blobs: BlobStore, name: string | undefined, rules: UploadRules = {}): Promise<Upload> {
  if (req.readableEnded) throw badRequest('send the file as multipart/form-data (field "attachment") or as a raw application/octet-stream body');
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
    const fileName = attachmentName(name);
    return { name: fileName, blob: await storeAttachmentBlob(blobs, req, rules) };
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
        stored = storeAttachmentBlob(blobs, file, rules).then((blob) => ({ name: fileName, blob }));
      } catch (error) {
        stored = Promise.reject(error);
      }
      stored.catch((error: unknown) => {
        failure = error;
        // an upload over the size limit was read to its end: the request finishes and the client gets the 413
        if (!(error instanceof HttpError && error.status === 413)) parser.destroy(error as Error);
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
