import path from 'node:path';
import type { Logger } from 'pino';
import { DigestThreads } from './blob-digests.js';
import type { BlobStore } from './blob-store.js';
import { buildBlobStore } from './blob-storage.js';
import { CommitFieldsCache } from './git/commit-fields.js';
import { GitStore } from './git/store.js';
import { OAuth2SigningKeys } from './oauth2/signing-key.js';
import type { Config } from './process/config.js';
import { YoungGarbage } from './process/young-garbage.js';

/** What a process builds once from its configuration, beside the database: the web's Deps and the worker's ActorDeps extend it. */
export interface Services {
  config: Config;
  log: Logger;
  /** Repositories on disk; branch reads take commit fields from the store's cache, so they rarely start git. */
  git: GitStore;
  blobs: BlobStore;
  /** Hash package files on threads beside the one receiving them. */
  digests: DigestThreads;
  /** Told of streamed chunks, so they do not pile up as garbage (see young-garbage.ts). */
  garbage: YoungGarbage;
  /** The OAuth2 provider's JWT signing key, made or read at first use. */
  oauth2Keys: OAuth2SigningKeys;
  /** Set when the process has been asked to stop: its health check then answers 503 while it finishes. */
  lifecycle: { draining: boolean };
}

/** Repositories under `$HEARTH_DATA_DIR/git`; blobs under `$HEARTH_DATA_DIR/blobs` or in the object store of `[storage]`. */
export function buildServices(config: Config, log: Logger): Services {
  return {
    config,
    log,
    git: new GitStore(path.join(config.dataDir, 'git'), new CommitFieldsCache()),
    blobs: buildBlobStore(config),
    digests: new DigestThreads(),
    garbage: new YoungGarbage(),
    oauth2Keys: new OAuth2SigningKeys(config.dataDir),
    lifecycle: { draining: false },
  };
}
