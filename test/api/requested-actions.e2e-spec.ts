import { REQUESTED_ACTION_TYPES } from '../../apps/api/src/audit/requested-actions';
import { http, RunningApi, startApi } from '../support';

/**
 * Management actions that change nothing of an endpoint's state leave one event each, on a stream
 * of their own, with who asked (ADR 0047): a test sent, a replay asked for (one delivery or a
 * time range), a recovery, a portal link minted — never the link's token.
 */
describe('requested actions in the log', () => {
  let api: RunningApi;
  let key: string;
  let keyId: string;
  let endpointId: string;

  beforeAll(async () => {
    // No engine here: a test waits the attempt timeout (and a margin) for an attempt, then answers.
    api = await startApi({ DELIVERY_TIMEOUT: '1s' });
    ({ key, keyId } = await api.newTenantWithKey(['webhooks:manage']));
    const registered = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/actions',
        events: ['alert.*'],
        secret: 'requested-actions-secret-01',
      },
    });
    endpointId = registered.body.id;
  });
  afterAll(() => api.close());

  async function actionsOf(type: string) {
    return api.dataSource.query<
      { stream_id: string; version: number; data: Record<string, unknown>; metadata: any }[]
    >(
      `SELECT stream_id, version, data, metadata FROM events
        WHERE type = $1 AND metadata->'actor'->>'id' = $2 ORDER BY position`,
      [type, keyId],
    );
  }

  it('records a test sent, naming the endpoint and the test delivery', async () => {
    const response = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { key });
    expect(response.status).toBeLessThan(300);
    const [action] = await actionsOf(REQUESTED_ACTION_TYPES.testRequested);
    expect(action).toMatchObject({
      version: 1,
      data: { endpoint_id: endpointId, delivery_id: expect.stringMatching(/^del_/) },
      metadata: {
        actor: { kind: 'api_key', id: keyId },
        request_id: response.headers.get('x-request-id'),
      },
    });
    expect(action.stream_id).toMatch(/^act_/);
  });

  it('records a replay of a time range with its range, even when nothing was in it', async () => {
    const range = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' };
    const response = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/replay`, {
      key,
      json: range,
    });
    expect(response.status).toBe(200);
    expect((await actionsOf(REQUESTED_ACTION_TYPES.replayRequested)).map((a) => a.data)).toEqual([
      { endpoint_id: endpointId, ...range },
    ]);
  });

  it('records a recovery, with the time from which abandoned deliveries were re-driven', async () => {
    const since = '2026-11-20T00:00:00.000Z';
    const response = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, {
      key,
      json: { redrive_abandoned_since: since },
    });
    expect(response.status).toBe(200);
    expect((await actionsOf(REQUESTED_ACTION_TYPES.recoveryRequested)).map((a) => a.data)).toEqual([
      { endpoint_id: endpointId, redrive_abandoned_since: since },
    ]);
  });

  it('records a portal link minted, by its id and never its token', async () => {
    const response = await http(api.baseUrl, 'POST', '/v1/portal-sessions', {
      key,
      json: { read_only: true },
    });
    expect(response.status).toBe(201);
    const [action] = await actionsOf(REQUESTED_ACTION_TYPES.portalSessionMinted);
    expect(action.data).toEqual({
      link_id: expect.stringMatching(/^pl_/),
      read_only: true,
      return_url: null,
      expires_at: response.body.expires_at,
    });
    const token = new URL(response.body.url).hash.replace('#portal=', '');
    expect(JSON.stringify(action)).not.toContain(token);
  });
});
