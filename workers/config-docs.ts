import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '../db/process/config-docs.js';

/** `npm run docs`: writes docs/configuration.md from the configuration schema. */
writeFileSync('docs/configuration.md', renderConfigurationDoc());
console.log('wrote docs/configuration.md');
