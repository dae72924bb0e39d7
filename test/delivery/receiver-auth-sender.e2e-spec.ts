import type { DeliveryAttempted } from '@svc/deliveries';
import { PrivateNetworkAllowList, type ReceiverAuth } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import { AttemptRunner } from '../../apps/delivery/src/dispatch/attempt-runner';
import { HttpSender } from '../../apps/delivery/src/dispatch/http-sender';
import { OAuthTokenCache } from '../../apps/delivery/src/dispatch/receiver-auth/oauth-token-cache';
import { ReceiverCredentials } from '../../apps/delivery/src/dispatch/receiver-auth/receiver-credentials';
import type { DeliveryRecorder } from '../../apps/delivery/src/recording/delivery-recorder';
import {
  HttpsReceiver,
  startHttpsReceiver,
  TEST_CA_FILE,
  TEST_CLIENT_CERT_FILE,
  TEST_CLIENT_KEY_FILE,
} from '../support/https-receiver';
import { directoryEndpoint } from '../support/builders/directory-endpoint-builders';
import { OAuthTokenServer, startOAuthTokenServer } from '../support/oauth-token-server';

/**
 * Receiver authentication (ADR 0048) between the engine's sender and real local servers: an
 * HTTPS receiver, an OAuth token endpoint, a receiver demanding a client certificate. The
 * attempts go through the real AttemptRunner, HttpSender, OAuthTokenCache and credentials; only
 * the recording (PostgreSQL) is left out, each attempt's event kept in memory.
 */

const LOOPBACK = new PrivateNetworkAllowList(['127.0.0.0/8', '::1/128']);
const CLIENT_ID = 'svc-delivery client';
const CLIENT_SECRET = 's3cret:with&odd=chars+';

interface Engine {
  sender: HttpSender;
  tokens: OAuthTokenCache;
  runner: AttemptRunner;
  recorded: DeliveryAttempted[];
  close(): Promise<void>;
}

function engine(options: { allowList?: PrivateNetworkAllowList; timeoutMs?: number } = {}): Engine {
  const sender = new HttpSender({
    timeoutMs: options.timeoutMs ?? 3000,
    allowList: options.allowList ?? LOOPBACK,
    extraCaFile: TEST_CA_FILE,
    connectionsPerOrigin: 8,
    onBlockedAddress: () => undefined,
  });
  const tokens = new OAuthTokenCache({
    dispatcher: sender.sharedDispatcher,
    timeoutMs: options.timeoutMs ?? 3000,
  });
  const recorded: DeliveryAttempted[] = [];
  const recorder = {
    record: (commit: { event: { data: DeliveryAttempted } }) => {
      recorded.push(commit.event.data);
      return Promise.resolve({ committed: false });
    },
  } as unknown as DeliveryRecorder;
  const runner = new AttemptRunner(
    sender,
    recorder,
    new DeliveryMetrics(new Registry()),
    { retryScheduleMs: [1000], maxAttempts: 3 },
    { healthy: true, whenHealthy: () => Promise.resolve() },
    { currentSigningKeys: () => [] },
    new ReceiverCredentials(tokens),
  );
  return {
    sender,
    tokens,
    runner,
    recorded,
    close: async () => {
      tokens.close();
      await sender.close();
    },
  };
}

let deliveries = 0;
function attempt(target: { url: string; auth: ReceiverAuth | null; version?: number }) {
  const id = `dlv_${++deliveries}`;
  const endpoint = directoryEndpoint({
    id: 'ep_auth',
    tenantId: 'ten_auth',
    url: target.url,
    version: target.version ?? 1,
    auth: target.auth,
  });
  return {
    identity: {
      delivery_id: id,
      event_id: `evt_${deliveries}`,
      endpoint_id: endpoint.id,
      tenant_id: endpoint.tenantId,
      event_type: 'alert.created',
    },
    before: null,
    endpoint,
    body: JSON.stringify({ id: `evt_${deliveries}` }),
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('receiver authentication between the sender and real servers (ADR 0048)', () => {
  let receiver: HttpsReceiver;
  let tokenServer: OAuthTokenServer;
  let current: Engine;
  /** Tokens the receiver refuses from now on (as if revoked). */
  const revoked = new Set<string>();

  beforeAll(async () => {
    tokenServer = await startOAuthTokenServer({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    receiver = await startHttpsReceiver({
      behaviour: (request) => {
        const authorization = request.headers.authorization;
        if (!authorization?.startsWith('Bearer ')) {
          return { status: 204 };
        }
        const token = authorization.slice('Bearer '.length);
        return tokenServer.isIssued(authorization) && !revoked.has(token)
          ? { status: 204 }
          : { status: 401 };
      },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await tokenServer.close();
  });
  beforeEach(() => {
    current = engine();
    receiver.requests.length = 0;
    tokenServer.requests.length = 0;
    tokenServer.setExpiresIn(3600);
    tokenServer.failWith(null);
    revoked.clear();
  });
  afterEach(() => current.close());

  const oauth = (overrides: Partial<ReceiverAuth> = {}): ReceiverAuth =>
    ({
      type: 'oauth2_client_credentials',
      token_url: tokenServer.tokenUrl,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'webhooks:write',
      audience: 'https://receiver.example',
      ...overrides,
    }) as ReceiverAuth;

  describe('headers and basic', () => {
    it('sends the extra headers as given, beside the signature, and basic credentials', async () => {
      const headers = await current.runner.run(
        attempt({
          url: `${receiver.url}/hec`,
          auth: {
            type: 'headers',
            headers: { Authorization: 'Splunk 1234-abcd', 'X-Env': 'prod' },
          },
        }),
      );
      expect(headers.result).toMatchObject({ succeeded: true, statusCode: 204 });
      const basic = await current.runner.run(
        attempt({
          url: `${receiver.url}/basic`,
          auth: { type: 'basic', username: 'ingest', password: 'pa:ss wörd' },
        }),
      );
      expect(basic.result.succeeded).toBe(true);
      const [first, second] = await receiver.waitForRequests(2);
      expect(first.headers).toMatchObject({
        authorization: 'Splunk 1234-abcd',
        'x-env': 'prod',
        'content-type': 'application/json',
      });
      expect(first.headers['x-svc-signature-256']).toMatch(/^sha256=/);
      expect(second.headers.authorization).toBe(
        `Basic ${Buffer.from('ingest:pa:ss wörd').toString('base64')}`,
      );
    });
  });

  describe('OAuth 2.0 client credentials', () => {
    it('fetches one token for many concurrent deliveries, and every one presents it', async () => {
      const receipts = await Promise.all(
        Array.from({ length: 20 }, () =>
          current.runner.run(attempt({ url: `${receiver.url}/oauth`, auth: oauth() })),
        ),
      );
      expect(receipts.every((receipt) => receipt.result.statusCode === 204)).toBe(true);
      expect(tokenServer.requests).toHaveLength(1);
      expect(tokenServer.requests[0]).toMatchObject({
        clientAuth: 'basic',
        contentType: 'application/x-www-form-urlencoded',
        form: {
          grant_type: 'client_credentials',
          scope: 'webhooks:write',
          audience: 'https://receiver.example',
        },
      });
      // Basic: no credentials in the form.
      expect(tokenServer.requests[0].form.client_secret).toBeUndefined();
      const presented = new Set(receiver.requests.map((request) => request.headers.authorization));
      expect([...presented]).toEqual([`Bearer ${tokenServer.latest()}`]);
    });

    it('fetches a new token once the old one is near its end', async () => {
      tokenServer.setExpiresIn(1); // used for half of it: 500 ms
      await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
      await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
      expect(tokenServer.requests).toHaveLength(1);
      await sleep(600);
      await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
      expect(tokenServer.requests).toHaveLength(2);
      const [a, b, c] = receiver.requests.map((request) => request.headers.authorization);
      expect(a).toBe(b);
      expect(c).not.toBe(a);
      expect(c).toBe(`Bearer ${tokenServer.latest()}`);
    });

    it('keeps a token per endpoint version: a new version fetches its own', async () => {
      await current.runner.run(attempt({ url: receiver.url, auth: oauth(), version: 1 }));
      await current.runner.run(attempt({ url: receiver.url, auth: oauth(), version: 2 }));
      expect(tokenServer.requests).toHaveLength(2);
    });

    it('drops a token the receiver refuses and retries once with a fresh one, one fetch for many refusals', async () => {
      await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
      revoked.add(tokenServer.latest() as string);
      receiver.requests.length = 0;
      const receipts = await Promise.all(
        Array.from({ length: 10 }, () =>
          current.runner.run(attempt({ url: receiver.url, auth: oauth() })),
        ),
      );
      expect(receipts.map((receipt) => receipt.result.statusCode)).toEqual(Array(10).fill(204));
      // The first token, then exactly one more for all ten refusals.
      expect(tokenServer.requests).toHaveLength(2);
      expect(receiver.requests).toHaveLength(20);
      expect(current.recorded.slice(-10).every((event) => event.status_code === 204)).toBe(true);
    });

    it('retries a refused token only once: a receiver that refuses every token gets two requests', async () => {
      receiver.respondWith({ status: 401 });
      try {
        const receipt = await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
        expect(receipt.result).toMatchObject({
          succeeded: false,
          statusCode: 401,
          errorKind: 'http_status',
        });
        expect(receiver.requests).toHaveLength(2);
        expect(tokenServer.requests).toHaveLength(2);
      } finally {
        receiver.respondWith((request) =>
          tokenServer.isIssued(request.headers.authorization) ? { status: 204 } : { status: 401 },
        );
      }
    });

    it('falls back to the form when Basic is refused with invalid_client, and remembers it', async () => {
      const formOnly = await startOAuthTokenServer({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        accepts: 'form',
        expiresInSeconds: 1,
      });
      const plain = await startHttpsReceiver();
      try {
        const auth = oauth({ token_url: formOnly.tokenUrl });
        const first = await current.runner.run(attempt({ url: plain.url, auth }));
        expect(first.result.succeeded).toBe(true);
        await sleep(600);
        await current.runner.run(attempt({ url: plain.url, auth }));
        expect(formOnly.requests.map((request) => request.clientAuth)).toEqual([
          'basic',
          'form',
          'form',
        ]);
        expect(formOnly.requests[1].form).toMatchObject({
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        });
        expect(plain.requests.map((request) => request.headers.authorization)).toEqual(
          formOnly.issued.map((token) => `Bearer ${token}`),
        );
      } finally {
        await plain.close();
        await formOnly.close();
      }
    });

    it('refuses a token URL that is not https, sending the secret nowhere', async () => {
      const receipt = await current.runner.run(
        attempt({
          url: receiver.url,
          auth: oauth({ token_url: `http://127.0.0.1:${tokenServer.port}/oauth/token` }),
        }),
      );
      expect(receipt.result).toMatchObject({
        succeeded: false,
        statusCode: null,
        errorKind: 'auth_token',
        errorMessage: 'the token URL must be https',
      });
      expect(tokenServer.requests).toHaveLength(0);
      expect(receiver.requests).toHaveLength(0);
    });

    it('fails the attempt as auth_token when the token endpoint fails, saying how and nothing secret', async () => {
      const failures: Array<[Parameters<OAuthTokenServer['failWith']>[0], RegExp]> = [
        [{ status: 500, body: 'oops' }, /^token endpoint answered 500$/],
        [
          { status: 400, body: '{"error":"invalid_scope"}' },
          /^token endpoint answered 400 invalid_scope$/,
        ],
        [
          { status: 200, body: '{"access_token":"x","token_type":"mac"}' },
          /token_type mac, not Bearer/,
        ],
        [{ destroySocket: true }, /^token endpoint unreachable: /],
      ];
      for (const [failure, message] of failures) {
        tokenServer.failWith(failure);
        const receipt = await current.runner.run(attempt({ url: receiver.url, auth: oauth() }));
        expect(receipt.result).toMatchObject({
          succeeded: false,
          statusCode: null,
          errorKind: 'auth_token',
          errorMessage: expect.stringMatching(message),
        });
        expect(receipt.result.errorMessage).not.toContain(CLIENT_SECRET);
      }
      tokenServer.failWith(null);
      const wrongSecret = await current.runner.run(
        attempt({ url: receiver.url, auth: oauth({ client_secret: 'wrong' }) }),
      );
      expect(wrongSecret.result).toMatchObject({
        errorKind: 'auth_token',
        errorMessage: 'token endpoint answered 401 invalid_client',
      });
      expect(receiver.requests).toHaveLength(0);
      expect(current.recorded.at(-1)).toMatchObject({ error_kind: 'auth_token', abandoned: false });
    });

    it('refuses a token endpoint at a blocked address as auth_token, "blocked address"', async () => {
      const strict = engine({ allowList: new PrivateNetworkAllowList([]) });
      try {
        const receipt = await strict.runner.run(attempt({ url: receiver.url, auth: oauth() }));
        expect(receipt.result).toMatchObject({
          errorKind: 'auth_token',
          errorMessage: 'token endpoint unreachable: blocked address',
        });
        expect(tokenServer.requests).toHaveLength(0);
      } finally {
        await strict.close();
      }
    });
  });

  describe('mutual TLS', () => {
    let mtlsReceiver: HttpsReceiver;
    const certificate = readFileSync(TEST_CLIENT_CERT_FILE, 'utf8');
    const privateKey = readFileSync(TEST_CLIENT_KEY_FILE, 'utf8');

    beforeAll(async () => {
      mtlsReceiver = await startHttpsReceiver({ requireClientCertificate: true });
    });
    afterAll(() => mtlsReceiver.close());
    beforeEach(() => {
      mtlsReceiver.requests.length = 0;
    });

    const mtls = (key = privateKey): ReceiverAuth => ({
      type: 'mtls',
      certificate,
      private_key: key,
    });

    it('connects with the client certificate, through one pool per endpoint version', async () => {
      for (let i = 0; i < 3; i++) {
        const receipt = await current.runner.run(
          attempt({ url: `${mtlsReceiver.url}/in`, auth: mtls() }),
        );
        expect(receipt.result).toMatchObject({ succeeded: true, statusCode: 200 });
      }
      expect(mtlsReceiver.requests).toHaveLength(3);
      expect(mtlsReceiver.requests[0].clientCertificateSubject).toMatchObject({
        CN: 'svc-webhooks-delivery',
      });
      expect(current.sender.clientCertificatePoolCount).toBe(1);
      // Endpoints without a certificate still share the one pool.
      await current.runner.run(attempt({ url: receiver.url, auth: null }));
      expect(current.sender.clientCertificatePoolCount).toBe(1);
    });

    it('is refused by the receiver without a certificate', async () => {
      const receipt = await current.runner.run(
        attempt({ url: `${mtlsReceiver.url}/in`, auth: null }),
      );
      expect(receipt.result).toMatchObject({ succeeded: false, statusCode: null });
      expect(['tls', 'connection_reset']).toContain(receipt.result.errorKind);
      expect(mtlsReceiver.requests).toHaveLength(0);
    });

    it('fails as tls, nothing sent, when the key does not match the certificate', async () => {
      const otherKey = readFileSync(resolve(TEST_CLIENT_KEY_FILE, '..', 'other-key.pem'), 'utf8');
      const receipt = await current.runner.run(
        attempt({ url: `${mtlsReceiver.url}/in`, auth: mtls(otherKey), version: 7 }),
      );
      expect(receipt.result).toMatchObject({
        succeeded: false,
        errorKind: 'tls',
        errorMessage: expect.stringMatching(
          /^the client certificate or its private key cannot be used/,
        ),
      });
      expect(receipt.result.errorMessage).not.toContain('PRIVATE KEY');
      expect(mtlsReceiver.requests).toHaveLength(0);
    });

    it('keeps at most the cap of pools, the least recently used closed', async () => {
      const small = new HttpSender({
        timeoutMs: 3000,
        allowList: LOOPBACK,
        extraCaFile: TEST_CA_FILE,
        connectionsPerOrigin: 2,
        maxClientCertificatePools: 2,
      });
      try {
        for (const poolKey of ['ep_a@1', 'ep_b@1', 'ep_c@1', 'ep_a@1']) {
          const result = await small.post(
            mtlsReceiver.url,
            '{}',
            {},
            {
              clientCertificate: { poolKey, certificate, privateKey },
            },
          );
          expect(result.succeeded).toBe(true);
        }
        expect(small.clientCertificatePoolCount).toBe(2);
      } finally {
        await small.close();
      }
    });
  });

  describe('the per-attempt timeout', () => {
    it("waits the endpoint's own budget when shorter, and never longer than the sender's", async () => {
      receiver.respondWith({ status: 200, delayMs: 700 });
      const sender = new HttpSender({
        timeoutMs: 1500,
        allowList: LOOPBACK,
        extraCaFile: TEST_CA_FILE,
        connectionsPerOrigin: 2,
      });
      try {
        expect(await sender.post(receiver.url, '{}', {})).toMatchObject({
          succeeded: true,
          statusCode: 200,
        });
        expect(await sender.post(receiver.url, '{}', {}, { timeoutMs: 300 })).toMatchObject({
          errorKind: 'timeout',
        });
        // The deployment's timeout is the ceiling: the scheduler's claims last only that long.
        receiver.respondWith({ status: 200, delayMs: 1800 });
        const capped = await sender.post(receiver.url, '{}', {}, { timeoutMs: 5000 });
        expect(capped).toMatchObject({ errorKind: 'timeout' });
        expect(capped.latencyMs).toBeLessThan(1800);
      } finally {
        receiver.respondWith((request) =>
          tokenServer.isIssued(request.headers.authorization) ? { status: 204 } : { status: 401 },
        );
        await sender.close();
      }
    });
  });
});
