import type { AttemptResult, DeliveryAttempted } from '@svc/deliveries';
import type { ReceiverAuth } from '@svc/webhook-endpoints';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../delivery-metrics';
import type { DirectoryEndpoint } from '../fan-out/endpoint-directory';
import type { DeliveryRecorder } from '../recording/delivery-recorder';
import { AttemptOrder, AttemptRunner } from './attempt-runner';
import type { AttemptOptions, HttpSender } from './http-sender';
import { TokenRequestError } from './receiver-auth/oauth-token-cache';
import { ReceiverCredentials, TokenSource } from './receiver-auth/receiver-credentials';

interface Post {
  url: string;
  headers: Record<string, string>;
  options: AttemptOptions | undefined;
}

const answered = (statusCode: number, latencyMs = 5): AttemptResult => ({
  succeeded: statusCode >= 200 && statusCode < 300,
  statusCode,
  errorKind: statusCode >= 200 && statusCode < 300 ? null : 'http_status',
  errorMessage: statusCode >= 200 && statusCode < 300 ? null : `answered ${statusCode}`,
  latencyMs,
  responseExcerpt: null,
});

function endpoint(overrides: Partial<DirectoryEndpoint> = {}): DirectoryEndpoint {
  return {
    id: 'ep_1',
    tenantId: 'ten_1',
    url: 'https://receiver.example/in',
    events: ['alert.*'],
    status: 'active',
    environment: 'live',
    secret: 'whsec_test',
    previousSecret: null,
    rateLimitPerSecond: null,
    signatureSchemes: ['hmac-sha256'],
    ordering: 'unordered',
    filter: null,
    version: 3,
    auth: null,
    attemptPolicy: null,
    timeoutMs: null,
    ...overrides,
  };
}

const order = (target: DirectoryEndpoint): AttemptOrder => ({
  identity: {
    delivery_id: 'dlv_1',
    event_id: 'evt_1',
    endpoint_id: target.id,
    tenant_id: target.tenantId,
    event_type: 'alert.created',
    sequence: 1,
  },
  before: null,
  endpoint: target,
  body: '{"id":"evt_1"}',
});

describe('AttemptRunner with receiver credentials (ADR 0048)', () => {
  let posts: Post[];
  let answers: AttemptResult[];
  let recorded: DeliveryAttempted[];
  let tokens: string[];
  let dropped: Array<[string, string]>;
  let tokenFailure: Error | null;
  let runner: AttemptRunner;

  beforeEach(() => {
    posts = [];
    answers = [];
    recorded = [];
    tokens = ['tok_1', 'tok_2', 'tok_3'];
    dropped = [];
    tokenFailure = null;
    const sender = {
      post: (
        url: string,
        _body: Buffer,
        headers: Record<string, string>,
        options?: AttemptOptions,
      ) => {
        posts.push({ url, headers, options });
        return Promise.resolve(answers.shift() ?? answered(200));
      },
    } as unknown as HttpSender;
    const recorder = {
      record: (commit: { event: { data: DeliveryAttempted } }) => {
        recorded.push(commit.event.data);
        return Promise.resolve({ committed: false });
      },
    } as unknown as DeliveryRecorder;
    let current = 0;
    const source: TokenSource = {
      token: () => (tokenFailure ? Promise.reject(tokenFailure) : Promise.resolve(tokens[current])),
      drop: (poolKey, token) => {
        dropped.push([poolKey, token]);
        if (tokens[current] === token) current++;
      },
    };
    runner = new AttemptRunner(
      sender,
      recorder,
      new DeliveryMetrics(new Registry()),
      { retryScheduleMs: [1000, 2000], maxAttempts: 3 },
      { healthy: true, whenHealthy: () => Promise.resolve() },
      { currentSigningKeys: () => [] },
      new ReceiverCredentials(source),
    );
  });

  it('sends an endpoint without auth as before: no options, or only its own timeout', async () => {
    await runner.run(order(endpoint()));
    await runner.run(order(endpoint({ timeoutMs: 3000 })));
    expect(posts.map((post) => post.options)).toEqual([undefined, { timeoutMs: 3000 }]);
    expect(posts[0].headers.authorization).toBeUndefined();
  });

  it("adds the extra headers, never over the engine's own, whatever their case", async () => {
    const auth: ReceiverAuth = {
      type: 'headers',
      headers: {
        Authorization: 'Splunk abc',
        'X-Tenant': 't1',
        'Content-Type': 'text/plain',
        'x-svc-event-id': 'forged',
        'Webhook-Signature': 'forged',
        'User-Agent': 'other',
      },
    };
    await runner.run(order(endpoint({ auth })));
    const { headers, options } = posts[0];
    expect(headers).toMatchObject({ Authorization: 'Splunk abc', 'X-Tenant': 't1' });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['X-SVC-Event-Id']).toBe('evt_1');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    for (const name of ['Content-Type', 'x-svc-event-id', 'Webhook-Signature', 'User-Agent']) {
      expect(headers[name]).toBeUndefined();
    }
    expect(options).toEqual({ timeoutMs: undefined, clientCertificate: undefined });
  });

  it('sends basic credentials and an mTLS endpoint through its version pool', async () => {
    await runner.run(
      order(endpoint({ auth: { type: 'basic', username: 'al ice', password: 'pä:ss' } })),
    );
    expect(posts[0].headers.authorization).toBe(
      `Basic ${Buffer.from('al ice:pä:ss').toString('base64')}`,
    );
    await runner.run(
      order(
        endpoint({
          auth: { type: 'mtls', certificate: 'CERT', private_key: 'KEY' },
          timeoutMs: 2500,
        }),
      ),
    );
    expect(posts[1].options).toEqual({
      timeoutMs: 2500,
      clientCertificate: { poolKey: 'ep_1@3', certificate: 'CERT', privateKey: 'KEY' },
    });
    expect(posts[1].headers.authorization).toBeUndefined();
  });

  const oauth: ReceiverAuth = {
    type: 'oauth2_client_credentials',
    token_url: 'https://idp.example/token',
    client_id: 'c',
    client_secret: 's',
  };

  it('retries once with a fresh token after a 401, within the attempt, and only once', async () => {
    answers.push(answered(401, 7), answered(202, 11));
    const receipt = await runner.run(order(endpoint({ auth: oauth })));
    expect(posts.map((post) => post.headers.authorization)).toEqual([
      'Bearer tok_1',
      'Bearer tok_2',
    ]);
    expect(dropped).toEqual([['ep_1@3', 'tok_1']]);
    expect(receipt.result).toMatchObject({ succeeded: true, statusCode: 202, latencyMs: 18 });
    expect(recorded).toHaveLength(1);

    answers.push(answered(401), answered(401));
    const refused = await runner.run(order(endpoint({ auth: oauth })));
    expect(posts).toHaveLength(4);
    expect(refused.result).toMatchObject({ succeeded: false, statusCode: 401 });
  });

  it('does not retry other answers, nor a 401 to other kinds of auth', async () => {
    answers.push(answered(403));
    await runner.run(order(endpoint({ auth: oauth })));
    answers.push(answered(401));
    await runner.run(order(endpoint({ auth: { type: 'basic', username: 'u', password: 'p' } })));
    expect(posts).toHaveLength(2);
    expect(dropped).toEqual([]);
  });

  it('fails the attempt as auth_token when no token can be had, sending nothing', async () => {
    tokenFailure = new TokenRequestError('token endpoint answered 401 invalid_client');
    const receipt = await runner.run(order(endpoint({ auth: oauth })));
    expect(posts).toHaveLength(0);
    expect(receipt.result).toMatchObject({
      succeeded: false,
      statusCode: null,
      errorKind: 'auth_token',
      errorMessage: 'token endpoint answered 401 invalid_client',
    });
    expect(recorded[0]).toMatchObject({ error_kind: 'auth_token', abandoned: false });
  });

  it('fails an endpoint whose credentials cannot be opened as secret_unavailable', async () => {
    const receipt = await runner.run(order(endpoint({ auth: 'unreadable' })));
    expect(posts).toHaveLength(0);
    expect(receipt.result).toMatchObject({
      errorKind: 'secret_unavailable',
      errorMessage: expect.stringMatching(/credentials cannot be decrypted/),
    });
  });

  it("decides by the endpoint's own attempt policy when it has one", async () => {
    answers.push(answered(500), answered(500));
    await runner.run(order(endpoint()));
    await runner.run(
      order(endpoint({ attemptPolicy: { retryScheduleMs: [60_000], maxAttempts: 1 } })),
    );
    expect(recorded.map((event) => event.abandoned)).toEqual([false, true]);
  });
});
