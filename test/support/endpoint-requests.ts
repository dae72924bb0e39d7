import type { RunningApi } from './api-harness';
import { http } from './http-client';

/**
 * The requests and reads a suite about one field of the endpoint resource makes: register,
 * update and read through the API with `key`, and the endpoint's events and projection row
 * straight from PostgreSQL (`column`s of webhook_endpoints).
 */
export function endpointRequests(api: RunningApi, key: string) {
  return {
    register: (body: unknown) => http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: body }),
    update: (id: string, body: unknown) =>
      http(api.baseUrl, 'PATCH', `/v1/webhooks/${id}`, { key, json: body }),
    read: (id: string) => http(api.baseUrl, 'GET', `/v1/webhooks/${id}`, { key }),
    eventsOf: (id: string) =>
      api.dataSource.query<
        { type: string; data: Record<string, unknown> & { changes?: object } }[]
      >('SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version', [id]),
    columnOf: async <Value>(
      id: string,
      column:
        'ordering' | 'signature_schemes' | 'filter' | 'auth' | 'retry_schedule' | 'timeout_seconds',
    ) => {
      const [row] = await api.dataSource.query<Record<string, Value>[]>(
        `SELECT ${column} AS value FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      return row?.value;
    },
  };
}
