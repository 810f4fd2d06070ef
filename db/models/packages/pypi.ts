import { badRequest } from '../../errors.js';

const nameMatcher = /^(?:[a-zA-Z]|[a-zA-Z][a-zA-Z0-9._-]*[a-zA-Z0-9])$/;
// PEP 440, as Gitea checks it
const versionMatcher = /^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;
const fileMatcher = /^[A-Za-z0-9][A-Za-z0-9._+-]*\.(?:tar\.gz|zip|whl|egg|tar\.bz2)$/;

/** PEP 503's normalized name: lower case, runs of `-`, `_` and `.` as one `-`. */
export const normalizePypiName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

export interface PypiUpload {
  name: string;
  version: string;
  filename: string;
  sha256: string | null;
  metadata: { summary: string; requires_python: string; author: string; license: string };
}

/** The fields of the multipart form twine sends, checked before the file is recorded; anything malformed is a 400. */
export function checkPypiUpload(fields: Record<string, string>, filename: string | null): PypiUpload {
  const name = fields.name ?? '';
  const version = fields.version ?? '';
  if (!nameMatcher.test(name) || !versionMatcher.test(version)) throw badRequest('invalid package name or version');
  if (!filename || !fileMatcher.test(filename)) throw badRequest('invalid file name');
  const sha256 = fields.sha256_digest ? fields.sha256_digest.toLowerCase() : null;
  return {
    name: normalizePypiName(name),
    version,
    filename,
    sha256,
    metadata: { summary: fields.summary ?? '', requires_python: fields.requires_python ?? '', author: fields.author ?? '', license: fields.license ?? '' },
  };
}
