import { inTx } from '../../../data-source.js';
import { eachWithProgress, type DoctorCheck, type Finding } from './check.js';

type Owner = 'attachment' | 'package_blob' | 'user_avatar' | 'repo_avatar' | 'upload';

interface BlobFinding extends Finding {
  key: string;
  /** What names the missing bytes; null for bytes nothing names. */
  owner: Owner | null;
}

/** Bytes younger than this are left alone: an upload writes its bytes before its row commits. */
export const unnamedBlobGraceSeconds = 3600;

/** Every blob key a row names, with what names it, in one statement. */
const namedKeys = `
  SELECT uuid::text AS key, 'attachment' AS owner FROM attachment
  UNION ALL SELECT blob_key, 'package_blob' FROM package_blob
  UNION ALL SELECT avatar, 'user_avatar' FROM "user" WHERE avatar <> ''
  UNION ALL SELECT avatar, 'repo_avatar' FROM repository WHERE avatar <> ''
  UNION ALL SELECT c->>'key', 'upload' FROM package_blob_upload u, jsonb_array_elements(u.chunks) c`;

/**
 * Blobs no row names (older than an hour), and rows whose blob is missing: attachments, package blobs, avatars,
 * container uploads in progress. The fix deletes unnamed bytes, and the rows whose bytes are gone: the attachment,
 * the package files that name the blob with the blob's row, the upload; an avatar is reset to none.
 */
export const blobs: DoctorCheck<BlobFinding> = {
  name: 'blobs',
  title: 'blobs without rows, rows without blobs',
  async find(ctx) {
    const named = await ctx.store.db.query<{ key: string; owner: Owner }>(namedKeys);
    const byKey = new Map(named.map((row) => [row.key, row.owner]));
    const stored = new Set<string>();
    const findings: BlobFinding[] = [];
    const cutoff = Date.now() - unnamedBlobGraceSeconds * 1000;
    const listing: Array<{ key: string; modified: Date }> = [];
    for await (const blob of ctx.blobs.list()) listing.push(blob);
    await eachWithProgress(ctx, listing, async (blob) => {
      stored.add(blob.key);
      if (!byKey.has(blob.key) && blob.modified.getTime() < cutoff) {
        findings.push({ key: blob.key, owner: null, subject: `blob ${blob.key}`, problem: 'no row names it' });
      }
    });
    for (const { key, owner } of named) {
      if (!stored.has(key)) findings.push({ key, owner, subject: `${owner.replace('_', ' ')} ${key}`, problem: 'its blob is missing' });
    }
    return findings;
  },
  async fix(ctx, findings) {
    const statements: Record<Owner, string[]> = {
      attachment: ['DELETE FROM attachment WHERE uuid::text = $1'],
      package_blob: [
        'DELETE FROM package_file WHERE blob_id IN (SELECT id FROM package_blob WHERE blob_key = $1)',
        'DELETE FROM package_blob WHERE blob_key = $1',
      ],
      user_avatar: [`UPDATE "user" SET avatar = '' WHERE avatar = $1`],
      repo_avatar: [`UPDATE repository SET avatar = '' WHERE avatar = $1`],
      upload: [`DELETE FROM package_blob_upload WHERE chunks @> jsonb_build_array(jsonb_build_object('key', $1::text))`],
    };
    await eachWithProgress(ctx, findings, async (finding) => {
      if (finding.owner === null) {
        await ctx.blobs.delete(finding.key);
        return;
      }
      const owner = finding.owner;
      await inTx(ctx.store, async (tx) => {
        for (const sql of statements[owner]) await tx.query(sql, [finding.key]);
      });
    });
    return findings.length;
  },
};
