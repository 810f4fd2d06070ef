import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Tx } from '../../data-source.js';
import { invalid, tooLarge } from '../../errors.js';
import type { RepoRow } from './repo-row.js';

/** Gitea's default AVATAR_MAX_FILE_SIZE. */
export const maxAvatarBytes = 1024 * 1024;

export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp';
export const imageMimeTypes: Record<ImageType, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** The image format, known by its magic bytes. */
export function imageTypeOf(bytes: Buffer): ImageType | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

/** Gitea's avatar rules, for repositories, users and organizations alike: at most 1 MiB, and an image it can read. */
export function assertAvatarImage(image: Buffer): ImageType {
  if (image.length > maxAvatarBytes) throw tooLarge(`the avatar is larger than ${maxAvatarBytes} bytes`);
  const type = imageTypeOf(image);
  if (!type) throw invalid('the avatar must be a PNG, JPEG, GIF or WebP image');
  return type;
}

export interface AvatarStore {
  /** $HEARTH_DATA_DIR */
  dataDir: string;
}

const hashPattern = /^[0-9a-f]{64}$/;

/** Where the avatar named `hash` lives: $HEARTH_DATA_DIR/repo-avatars/<hash>; null for a name that is not a hash. */
export function repoAvatarPath(store: AvatarStore, hash: string): string | null {
  return hashPattern.test(hash) ? path.join(store.dataDir, 'repo-avatars', hash) : null;
}

/**
 * Sets the repository's avatar: the file is written before the row changes and removed again if the
 * transaction does not commit; the previous file goes once the change is durable.
 */
export async function setRepoAvatar(tx: Tx, store: AvatarStore, repo: RepoRow, image: Buffer): Promise<RepoRow> {
  assertAvatarImage(image);
  const hash = createHash('sha256').update(`${repo.id}-`).update(image).digest('hex');
  const file = repoAvatarPath(store, hash)!;
  const [row] = await tx.query<RepoRow>('UPDATE repository SET avatar = $2, updated = now() WHERE id = $1 RETURNING *', [repo.id, hash]);
  if (!existsSync(file)) {
    tx.onRollback(() => rm(file, { force: true }));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, image);
  }
  if (repo.avatar && repo.avatar !== hash) forgetAfterCommit(tx, store, repo.avatar);
  return row;
}

export async function deleteRepoAvatar(tx: Tx, store: AvatarStore, repo: RepoRow): Promise<RepoRow> {
  const [row] = await tx.query<RepoRow>(`UPDATE repository SET avatar = '', updated = now() WHERE id = $1 RETURNING *`, [repo.id]);
  if (repo.avatar) forgetAfterCommit(tx, store, repo.avatar);
  return row;
}

export async function readRepoAvatar(store: AvatarStore, hash: string): Promise<{ bytes: Buffer; type: string } | null> {
  const file = repoAvatarPath(store, hash);
  if (!file || !existsSync(file)) return null;
  const bytes = await readFile(file);
  const type = imageTypeOf(bytes);
  return { bytes, type: type ? imageMimeTypes[type] : 'application/octet-stream' };
}

function forgetAfterCommit(tx: Tx, store: AvatarStore, hash: string): void {
  const file = repoAvatarPath(store, hash);
  if (file) tx.afterCommit(() => rm(file, { force: true }));
}
