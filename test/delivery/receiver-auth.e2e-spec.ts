import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startConnectProxy } from '../support/connect-proxy';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { OAuthTokenServer, startOAuthTokenServer } from '../support/oauth-token-server';
import { waitFor } from '../support/wait-for';

const TLS = resolve(__dirname, '../fixtures/tls');
const pem = (name: string) => readFileSync(resolve(TLS, name), 'utf8');

interface Attempt {
  outcome: string;
  status_code: number | null;
  error_kind: string | null;
  error_message: string | null;
}

/**
 * Receivers that demand more than a signature (issue 34, ADR 0048), through the API, JetStream,
 * the engine and real HTTPS receivers: each kind of `auth` reaches a receiver that checks it, a
 * token endpoint's failure is an `auth_token` attempt, the endpoint's own retry schedule and
 * timeout decide its attempts, and an egress proxy carries deliveries to the checked address.
 */
describe('receiver authentication, through the engine', () => {
  let stack: DeliveryStack;
  let tokens: OAuthTokenServer;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    tokens = await startOAuthTokenServer({
      clientId: 'svc-webhooks',
      clientSecret: 'token-endpoint-secret',
      accepts: 'form',
      expiresInSeconds: 3600,
    });
  });
  afterAll(async () => {
    await tokens.close();
    await stack.close();
  });

  const withReceiver = async (
    options: Parameters<typeof startHttpsReceiver>[0],
    run: (receiver: HttpsReceiver) => Promise<void>,
  ) => {
    const receiver = await startHttpsReceiver(options);
    try {
      await run(receiver);
    } finally {
      await receiver.close();
    }
  };

  const endpointWith = async (key: string, url: string, fields: Record<string, unknown>) => {
    const endpoint = await stack.registerEndpoint(key, url);
    if (Object.keys(fields).length === 0) {
      return endpoint;
    }
    const patched = await http(stack.api.baseUrl, 'PATCH', `/v1/webhooks/${endpoint.id}`, {
      key,
      json: fields,
    });
    expect(patched.status).toBe(200);
    return endpoint;
  };

  const attemptsOf = async (key: string, endpointId: string): Promise<Attempt[]> => {
    const { body } = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}/attempts`, {
      key,
    });
    return (body.data as Attempt[]).reverse();
  };

  const waitForRequests = (receiver: HttpsReceiver, count: number) =>
    waitFor(() => Promise.resolve(receiver.requests.length >= count), {
      what: `${count} requests at the receiver`,
    });

  it('sends the extra headers a Splunk HEC wants, and Basic credentials, beside the signature', async () => {
    const token = 'Splunk 6c1b2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d';
    await withReceiver(
      {
        behaviour: (request: ReceivedRequest) =>
          request.headers.authorization === token ||
          request.headers.authorization ===
            `Basic ${Buffer.from('svc:pw-basic').toString('base64')}`
            ? { status: 200 }
            : { status: 401 },
      },
      async (receiver) => {
        const { tenantId, key } = await stack.newTenant();
        await endpointWith(key, `${receiver.url}/hec`, {
          auth: { type: 'headers', headers: { Authorization: token, 'X-Splunk-Channel': 'c1' } },
        });
        await endpointWith(key, `${receiver.url}/basic`, {
          auth: { type: 'basic', username: 'svc', password: 'pw-basic' },
        });
        await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_1' });
        await waitForRequests(receiver, 2);
        const hec = receiver.requests.find((request) => request.path === '/hec')!;
        expect(hec.headers).toMatchObject({
          authorization: token,
          'x-splunk-channel': 'c1',
          'x-svc-signature-256': expect.stringMatching(/^sha256=/),
          'content-type': 'application/json',
        });
        const basic = receiver.requests.find((request) => request.path === '/basic')!;
        expect(basic.headers.authorization).toMatch(/^Basic /);
        expect(
          receiver.requests.every((request) => request.headers['x-svc-delivery-attempt'] === '1'),
        ).toBe(true);
      },
    );
  });

  it('fetches one OAuth token for many deliveries, and fetches a new one once when the receiver answers 401', async () => {
    let rejectNext = false;
    await withReceiver(
      {
        behaviour: (request: ReceivedRequest) => {
          if (rejectNext) {
            rejectNext = false;
            return { status: 401 };
          }
          return tokens.isIssued(request.headers.authorization) ? { status: 200 } : { status: 401 };
        },
      },
      async (receiver) => {
        const { tenantId, key } = await stack.newTenant();
        const endpoint = await endpointWith(key, `${receiver.url}/oauth`, {
          auth: {
            type: 'oauth2_client_credentials',
            token_url: tokens.tokenUrl,
            client_id: 'svc-webhooks',
            client_secret: 'token-endpoint-secret',
            scope: 'events.write',
          },
        });
        const fetchedBefore = tokens.issued.length;
        for (let index = 0; index < 5; index++) {
          await stack.publish(tenantId, 'alert.created', { alert_id: `alr_${index}` });
        }
        await waitForRequests(receiver, 5);
        expect(tokens.issued.length - fetchedBefore).toBe(1);
        const seen = tokens.requests.at(-1)!;
        expect(seen.form).toMatchObject({
          grant_type: 'client_credentials',
          scope: 'events.write',
        });
        expect(seen.clientAuth).toBe('form');

        // The receiver refuses the cached token once: one new token, the same attempt succeeds.
        rejectNext = true;
        await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_after_401' });
        await waitForRequests(receiver, 7);
        expect(tokens.issued.length - fetchedBefore).toBe(2);
        const last = receiver.requests.at(-1)!;
        expect(last.headers.authorization).toBe(`Bearer ${tokens.latest()}`);
        expect(last.headers['x-svc-delivery-attempt']).toBe('1');
        await waitFor(async () => (await attemptsOf(key, endpoint.id)).length === 6, {
          what: 'six recorded attempts',
        });
        expect((await attemptsOf(key, endpoint.id)).map((attempt) => attempt.outcome)).toEqual(
          Array(6).fill('succeeded'),
        );
      },
    );
  });

  it('records a token endpoint that refuses as an auth_token failure, retried on schedule', async () => {
    await withReceiver({}, async (receiver) => {
      const { tenantId, key } = await stack.newTenant();
      const endpoint = await endpointWith(key, `${receiver.url}/no-token`, {
        auth: {
          type: 'oauth2_client_credentials',
          token_url: tokens.tokenUrl,
          client_id: 'svc-webhooks',
          client_secret: 'not-the-secret',
        },
        retry_schedule: ['1s'],
      });
      await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_refused' });
      await waitFor(async () => (await attemptsOf(key, endpoint.id)).length === 2, {
        what: 'both attempts of the endpoint schedule',
      });
      const attempts = await attemptsOf(key, endpoint.id);
      expect(attempts.map((attempt) => [attempt.outcome, attempt.error_kind])).toEqual([
        ['failed', 'auth_token'],
        ['failed', 'auth_token'],
      ]);
      expect(attempts[0].error_message).toMatch(/invalid_client/);
      expect(JSON.stringify(attempts)).not.toContain('not-the-secret');
      expect(receiver.requests).toHaveLength(0);
      const read = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}`, { key });
      expect(read.body.status).toBe('degraded');
    });
  });

  it('presents the client certificate to a receiver that demands one, and is refused without it', async () => {
    await withReceiver({ requireClientCertificate: true }, async (receiver) => {
      const { tenantId, key } = await stack.newTenant();
      await endpointWith(key, `${receiver.url}/mtls`, {
        auth: { type: 'mtls', certificate: pem('client.pem'), private_key: pem('client-key.pem') },
      });
      const without = await endpointWith(key, `${receiver.url}/plain`, {
        retry_schedule: ['1s'],
      });
      await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_mtls' });
      await waitForRequests(receiver, 1);
      expect(receiver.requests.map((request) => request.path)).toEqual(['/mtls']);
      expect(receiver.requests[0].clientCertificateSubject).toMatchObject({
        CN: 'svc-webhooks-delivery',
      });
      await waitFor(async () => (await attemptsOf(key, without.id)).length === 2, {
        what: 'the endpoint without a certificate to fail both attempts',
      });
      const refused = await attemptsOf(key, without.id);
      expect(refused.every((attempt) => attempt.outcome === 'failed')).toBe(true);
      expect(receiver.requests.map((request) => request.path)).toEqual(['/mtls']);
    });
  });

  it("follows the endpoint's own timeout and retry schedule: one attempt more than its delays", async () => {
    await withReceiver({ behaviour: { status: 200, delayMs: 1500 } }, async (receiver) => {
      const { tenantId, key } = await stack.newTenant();
      // The deployment's timeout here is 2 s: the endpoint's 1 s times out, the default does not.
      const quick = await endpointWith(key, `${receiver.url}/quick`, {
        timeout_seconds: 1,
        retry_schedule: ['1s', '1s'],
      });
      const patient = await endpointWith(key, `${receiver.url}/patient`, {});
      await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_slow' });
      await waitFor(async () => (await attemptsOf(key, quick.id)).length === 3, {
        what: 'three attempts of the quick endpoint',
        timeoutMs: 20_000,
      });
      const quickAttempts = await attemptsOf(key, quick.id);
      expect(quickAttempts.map((attempt) => attempt.error_kind)).toEqual([
        'timeout',
        'timeout',
        'timeout',
      ]);
      await waitFor(async () => (await attemptsOf(key, patient.id)).length === 1, {
        what: 'the patient endpoint',
      });
      expect((await attemptsOf(key, patient.id))[0].outcome).toBe('succeeded');
      // Abandoned after its third attempt: no fourth comes.
      await new Promise((done) => setTimeout(done, 1500));
      expect(await attemptsOf(key, quick.id)).toHaveLength(3);
    });
  });
});

describe('deliveries through an egress proxy, through the engine', () => {
  it('opens a tunnel to the checked address for each connection, with the proxy credentials', async () => {
    const proxy = await startConnectProxy({ credentials: 'egress:proxy-pass' });
    const receiver = await startHttpsReceiver({});
    const stack = await startDeliveryStack({ DELIVERY_PROXY_URL: proxy.url });
    try {
      const { tenantId, key } = await stack.newTenant();
      await stack.registerEndpoint(key, `${receiver.url}/proxied`);
      await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_proxied' });
      await waitFor(() => Promise.resolve(receiver.requests.length === 1), {
        what: 'the proxied delivery',
      });
      expect(proxy.tunnels).toBeGreaterThanOrEqual(1);
      expect(proxy.connects[0]).toMatchObject({
        target: `127.0.0.1:${receiver.port}`,
        status: 200,
        proxyAuthorization: `Basic ${Buffer.from('egress:proxy-pass').toString('base64')}`,
      });
    } finally {
      await stack.close();
      await receiver.close();
      await proxy.close();
    }
  });
});
