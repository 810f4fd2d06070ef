import type { Logger } from 'pino';
import type { Config } from '../db/process/config.js';
import type { Store } from '../db/data-source.js';
import type { GitStore } from '../db/git/store.js';
import type { BlobStore } from '../db/blob-store.js';

/** Everything a request handler may use, handed in by the process that built the app. */
export interface Deps extends Store {
  config: Config;
  log: Logger;
  git: GitStore;
  blobs: BlobStore;
}
