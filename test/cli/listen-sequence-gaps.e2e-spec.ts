import { signatureHeaderValue, standardWebhookSignature } from '@svc/signing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../apps/cli/src/cli';
import { waitFor } from '../support/wait-for';

/**
 * `svc listen` reports an X-SVC-Sequence number still missing past its --gap-window, while it
 * listens and not again at exit. The registration API is a stand-in that keeps the secret the
 * listener registers, so that the test can sign deliveries as the engine does, with hand-picked
 * numbers: the engine never leaves a gap on purpose.
 */

const ENDPOINT_ID = 'wh_sequence_gaps';

/** The two routes of the API that `svc listen` calls, and the secret it registered. */
async function startRegistrationApi(): Promise<{
  server: Server;
  baseUrl: string;
  registered: Promise<{ url: string; secret: string }>;
}> {
  let resolveRegistered!: (value: { url: string; secret: string }) => void;
  const registered = new Promise<{ url: string; secret: string }>(
    (resolve) => (resolveRegistered = resolve),
  );
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/webhooks') {
        const { url, events, secret } = JSON.parse(body) as {
          url: string;
          events: string[];
          secret: string;
        };
        resolveRegistered({ url, secret });
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: ENDPOINT_ID, url, events }));
      } else if (req.method === 'DELETE' && req.url === `/v1/webhooks/${ENDPOINT_ID}`) {
        res.writeHead(204).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, baseUrl, registered };
}

describe('svc listen: sequence gaps', () => {
  let dataDir: string;
  let api: Awaited<ReturnType<typeof startRegistrationApi>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-listen-gaps-'));
    api = await startRegistrationApi();
  });

  afterAll(async () => {
    await new Promise((resolve) => api.server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('warns once about a number missing past the window, notes its late arrival, and lists a younger gap at exit', async () => {
    const lines: Record<string, unknown>[] = [];
    let stdout = '';
    let stderr = '';
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const listening = runCli(
      [
        'listen',
        '--api-key',
        'svc_live_stand_in',
        '--api-url',
        api.baseUrl,
        '--signature-schemes',
        'hmac-sha256',
        '--gap-window',
        '2s',
        '--json',
      ],
      {
        stdout: (text) => {
          stdout += text;
          lines.push(
            ...text
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line)),
          );
        },
        stderr: (text) => (stderr += text),
        stdin: () => Promise.resolve(''),
        env: { NODE_ENV: 'test', LOCAL_DATA_DIR: dataDir },
        cwd: process.cwd(),
        untilStopped: () => stopped,
      },
    );
    const { url, secret } = await api.registered;
    const ca = await readFile(join(dataDir, 'local-ca', 'ca.pem'), 'utf8');

    /** A delivery signed as the engine signs it; `sequence` undefined: a test event. */
    const deliver = (eventId: string, sequence: number | undefined) => {
      const body = JSON.stringify({
        id: eventId,
        type: 'alert.created',
        created_at: new Date().toISOString(),
        tenant_id: 'ten_stand_in',
        data: {},
      });
      const sentAt = Math.floor(Date.now() / 1000);
      return new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: new URL(url).port,
            method: 'POST',
            ca,
            headers: {
              'content-type': 'application/json',
              'x-svc-signature-256': signatureHeaderValue(body, secret),
              'webhook-id': eventId,
              'webhook-timestamp': String(sentAt),
              'webhook-signature': standardWebhookSignature([secret], eventId, sentAt, body),
              'x-svc-delivery-attempt': '1',
              ...(sequence !== undefined && { 'x-svc-sequence': String(sequence) }),
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
    };
    const lineWhere = (predicate: (line: Record<string, unknown>) => boolean, what: string) =>
      waitFor(() => Promise.resolve(lines.find(predicate)), { what, timeoutMs: 10_000 });
    const printed = (eventId: string) =>
      lineWhere((line) => line.event_id === eventId, `the line of ${eventId}`);

    expect(await deliver('evt_seq_1', 1)).toBe(200);
    expect(await deliver('evt_seq_3', 3)).toBe(200);
    expect(await deliver('evt_test_event', undefined)).toBe(200);
    await printed('evt_test_event');
    expect(lines.find((line) => line.event_id === 'evt_seq_3')).toMatchObject({ sequence: 3 });
    expect(lines.find((line) => line.event_id === 'evt_test_event')).toMatchObject({
      sequence: null,
    });

    // Reported while listening, by the periodic check.
    const warning = await lineWhere(
      (line) => line.warning === 'sequence_gap',
      'the warning about 2',
    );
    expect(warning).toMatchObject({
      endpoint_id: ENDPOINT_ID,
      missing_from: 2,
      missing_to: 2,
      gap_window_ms: 2000,
    });

    expect(await deliver('evt_seq_2', 2)).toBe(200);
    await lineWhere((line) => line.late_sequence === 2, 'the late arrival of 2');
    // 4 is missing from now on, too briefly to warn about before the listener stops.
    expect(await deliver('evt_seq_5', 5)).toBe(200);
    await printed('evt_seq_5');
    stop();

    expect(await listening).toBe(0);
    expect(stderr).toBe('');
    expect(lines.filter((line) => 'warning' in line)).toEqual([warning]);
    expect(lines).toContainEqual(
      expect.objectContaining({ open_gap: { missing_from: 4, missing_to: 4 } }),
    );
    expect(lines.at(-1)).toEqual({ removed: ENDPOINT_ID });
    expect(stdout.endsWith('\n')).toBe(true);
  });
});
