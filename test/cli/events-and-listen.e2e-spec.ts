import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SubjectScheme } from '@svc/contracts';
import { provisionJetStream } from '@svc/messaging';
import { signatureHeaderValue } from '@svc/signing';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi, RunningApi } from '../support/api-harness';
import { runSvc } from '../support/cli-runner';
import {
  connectTestNats,
  deleteStreams,
  JetStreamSettings,
  uniqueJetStreamSettings,
} from '../support/jetstream-harness';
import { TEST_NATS_URL } from '../support/test-environment';
import { waitFor } from '../support/wait-for';

describe('svc events publish (real NATS)', () => {
  const settings: JetStreamSettings = uniqueJetStreamSettings();
  const env = { NATS_URL: TEST_NATS_URL, NATS_SUBJECT_ROOT: settings.subjectRoot };
  let nc: NatsConnection;
  let dir: string;

  beforeAll(async () => {
    nc = await connectTestNats();
    await provisionJetStream(nc, settings);
    dir = await mkdtemp(join(tmpdir(), 'svc-publish-'));
  });

  afterAll(async () => {
    await deleteStreams(nc, settings);
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('publishes a valid envelope on the tenant and type subject, with no database configured', async () => {
    const run = await runSvc(
      [
        'events',
        'publish',
        '--tenant',
        'ten_abc',
        '--type',
        'incident.created',
        '--data',
        '{"id":"inc_1"}',
        '--json',
      ],
      { env },
    );

    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      subject: new SubjectScheme(settings.subjectRoot).event('ten_abc', 'incident.created'),
      stream: settings.eventsStream,
      duplicate: false,
      event: { type: 'incident.created', tenant_id: 'ten_abc', data: { id: 'inc_1' } },
    });
    const stored = await (
      await jetstreamManager(nc)
    ).streams.getMessage(settings.eventsStream, {
      seq: run.json.seq,
    });
    expect(stored?.json()).toEqual(run.json.event);
    expect(stored?.header.get('Nats-Msg-Id')).toBe(run.json.event.id);
  });

  it('reads the data from a file, and reports a republished id as a duplicate', async () => {
    const file = join(dir, 'alert.json');
    await writeFile(file, '{"id":"alr_9","severity":"low"}');
    const argv = [
      'events',
      'publish',
      '--tenant',
      'ten_abc',
      '--type',
      'alert.created',
      '--data-file',
      file,
      '--id',
      'evt_cli_retry',
      '--json',
    ];

    const first = await runSvc(argv, { env });
    const again = await runSvc(argv, { env });

    expect(first.json).toMatchObject({ duplicate: false, event: { data: { severity: 'low' } } });
    expect(again.json).toMatchObject({ duplicate: true, seq: first.json.seq });
  });

  it.each([
    [
      ['--type', 'alert.nope', '--data', '{}'],
      /--type: unknown event type alert\.nope; known types: alert\.created/,
    ],
    [['--type', 'alert.created', '--data', '{x'], /--data: not JSON/],
    [['--type', 'alert.created', '--data', '[1]'], /--data: must be a JSON object/],
    [['--type', 'alert.created'], /either --data or --data-file/],
    [['--type', 'alert.created', '--data-file', '/nonexistent.json'], /--data-file: cannot read/],
    [
      ['--type', 'alert.created', '--data', '{}', '--created-at', 'yesterday'],
      /the event is not valid: \/created_at/,
    ],
  ])(
    'refuses %j with a usage error that says what is wrong, publishing nothing',
    async (args, message) => {
      const before = (await (await jetstreamManager(nc)).streams.info(settings.eventsStream)).state
        .messages;

      const run = await runSvc(['events', 'publish', '--tenant', 'ten_abc', ...args], { env });

      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(
        (await (await jetstreamManager(nc)).streams.info(settings.eventsStream)).state.messages,
      ).toBe(before);
    },
  );

  it('says where it looked when NATS does not answer', async () => {
    const run = await runSvc(
      ['events', 'publish', '--tenant', 'ten_abc', '--type', 'alert.created', '--data', '{}'],
      { env: { NATS_URL: 'nats://127.0.0.1:1' } },
    );

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach NATS at nats://127.0.0.1:1');
  });
});

describe('svc listen (real API)', () => {
  let api: RunningApi;
  let dataDir: string;

  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8' });
    dataDir = await mkdtemp(join(tmpdir(), 'svc-listen-'));
  });

  afterAll(async () => {
    await api.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers itself, answers 401 to a wrong signature and says so, and removes its endpoint on stop', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const listening = runSvc(
      ['listen', '--api-key', key, '--api-url', api.baseUrl, '--events', 'alert.*', '--json'],
      {
        env: { LOCAL_DATA_DIR: dataDir },
        untilStopped: stopped,
      },
    );
    // runSvc collects output only at the end, so the registration is read back from the API.
    const endpoint = await waitFor(
      async () => {
        const list = await fetch(`${api.baseUrl}/v1/webhooks`, {
          headers: { authorization: `Bearer ${key}` },
        });
        type Listed = {
          id: string;
          url: string;
          events: string[];
          signature_schemes: string[];
          ordering: string;
        };
        return ((await list.json()) as { data: Listed[] }).data[0];
      },
      { what: 'the listener to register its endpoint' },
    );
    expect(endpoint.events).toEqual(['alert.*']);
    // Both schemes by default, so that a first delivery shows both verify.
    expect(endpoint.signature_schemes).toEqual(['hmac-sha256', 'ed25519']);
    expect(endpoint.ordering).toBe('unordered');
    expect(endpoint.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);

    // A client of the listener trusts the local CA made under the data folder, as the engine does.
    const ca = await readFile(join(dataDir, 'local-ca', 'ca.pem'), 'utf8');
    const body = '{"id":"evt_forged","type":"alert.created"}';
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: new URL(endpoint.url).port,
          method: 'POST',
          ca,
          headers: {
            'content-type': 'application/json',
            'x-svc-signature-256': signatureHeaderValue(body, 'not the secret it registered'),
            'x-svc-delivery-attempt': '1',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(401);

    stop();
    const run = await listening;
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      endpoint_id: endpoint.id,
      events: ['alert.*'],
      ordering: 'unordered',
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ signature: 'invalid', signatures_verified: [], attempt: 1 }),
    );
    expect(lines.at(-1)).toEqual({ removed: endpoint.id });
    const gone = await fetch(`${api.baseUrl}/v1/webhooks/${endpoint.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(gone.status).toBe(404);
  });

  it('refuses an unknown signature scheme before registering anything', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    const run = await runSvc(
      ['listen', '--api-key', key, '--api-url', api.baseUrl, '--signature-schemes', 'rsa'],
      { env: { LOCAL_DATA_DIR: dataDir } },
    );

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--signature-schemes: give one or both of hmac-sha256, ed25519');
    expect(run.stderr).toContain('unknown: rsa');
  });

  it('registers a FIFO endpoint with --ordering fifo, and says so', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const listening = runSvc(
      ['listen', '--api-key', key, '--api-url', api.baseUrl, '--ordering', 'fifo', '--keep'],
      { env: { LOCAL_DATA_DIR: dataDir }, untilStopped: stopped },
    );
    const endpoint = await waitFor(
      async () => {
        const list = await fetch(`${api.baseUrl}/v1/webhooks`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return ((await list.json()) as { data: { id: string; ordering: string }[] }).data[0];
      },
      { what: 'the listener to register its endpoint' },
    );
    expect(endpoint.ordering).toBe('fifo');

    stop();
    const run = await listening;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/registered endpoint wh_\w+ for .*, ordering fifo\n/);
  });

  it('refuses an unknown ordering before registering anything', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    const run = await runSvc(
      ['listen', '--api-key', key, '--api-url', api.baseUrl, '--ordering', 'lifo'],
      { env: { LOCAL_DATA_DIR: dataDir } },
    );

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/'lifo' is invalid\. Allowed choices are unordered, fifo/);
    const list = await fetch(`${api.baseUrl}/v1/webhooks`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('needs an API key', async () => {
    const run = await runSvc(['listen', '--api-url', api.baseUrl], {
      env: { LOCAL_DATA_DIR: dataDir },
    });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--api-key or SVC_API_KEY');
  });
});
