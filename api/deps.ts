import type { Store } from '../db/data-source.js';
import type { Services } from '../db/services.js';

/** Everything a request handler may use, handed in by the process that built the app. */
export interface Deps extends Store, Services {}
