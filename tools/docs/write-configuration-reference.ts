import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONFIGURATION_REFERENCE,
  configurationReference,
  repositoryRoot,
} from './configuration-reference';

/** `npm run docs:config`: writes docs/configuration.md from the schemas of libs/config. */
const file = join(repositoryRoot(), CONFIGURATION_REFERENCE);
writeFileSync(file, configurationReference());
process.stdout.write(`wrote ${CONFIGURATION_REFERENCE}\n`);
