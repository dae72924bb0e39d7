import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_TYPES_FILE, apiTypesSource, repositoryRoot } from './api-types';
import { servedOpenApiDocument } from './served-openapi-document';

/**
 * `npm run console:api-types`: writes apps/console/src/api/schema.ts from the OpenAPI document
 * the API serves (PostgreSQL must be reachable at DATABASE_URL, by default the local server).
 */
async function main(): Promise<void> {
  const root = repositoryRoot();
  const source = apiTypesSource(await servedOpenApiDocument(), root);
  writeFileSync(join(root, API_TYPES_FILE), source);
  process.stdout.write(`wrote ${API_TYPES_FILE}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
