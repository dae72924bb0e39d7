import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_TYPES_FILE, apiTypesSource, repositoryRoot } from '../../tools/console/api-types';
import { http, RunningApi, startApi } from '../support';

/**
 * The console's typed client (ADR 0042) is only as good as its types: the committed
 * apps/console/src/api/schema.ts must be what openapi-typescript makes of the document the API
 * serves now. A route or field added without `npm run console:api-types` fails here.
 */
describe("the console's API types", () => {
  let api: RunningApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('are generated from the served OpenAPI document, and current', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    const root = repositoryRoot();
    const committed = readFileSync(join(root, API_TYPES_FILE), 'utf8');
    const expected = apiTypesSource(response.body, root);
    if (committed !== expected) {
      throw new Error(
        `${API_TYPES_FILE} is stale: the API's OpenAPI document changed. Run npm run console:api-types and commit the file.`,
      );
    }
  });
});
