// Until db/models/code/branches.ts (being rewritten) imports `emit` from './events/emit.js', it finds it here.
export { emit } from './events/emit.js';
