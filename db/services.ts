import path from 'node:path';
import type { Logger } from 'pino';
import { FileBlobStore, type BlobStore } from './blob-store.js';
import { GitStore } from './git-store.js';
import { CommitFieldsCache } from './models/code/branches.js';
import type { Config } from './process/config.js';

/** What a process builds once from its configuration, beside the database: the web's Deps and the worker's ActorDeps extend it. */
export interface Services {
  config: Config;
  log: Logger;
  git: GitStore;
  blobs: BlobStore;
  /** Commit fields by commit id (immutable), so branch reads rarely start git. */
  commits: CommitFieldsCache;
}

/** Repositories under `$HEARTH_DATA_DIR/git`, blobs under `$HEARTH_DATA_DIR/blobs`. */
export function buildServices(config: Config, log: Logger): Services {
  return {
    config,
    log,
    git: new GitStore(path.join(config.dataDir, 'git')),
    blobs: new FileBlobStore(path.join(config.dataDir, 'blobs')),
    commits: new CommitFieldsCache(),
  };
}
