import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import {
  HttpsReceiver,
  refusedPort,
  startHttpsReceiver,
  TEST_CA_FILE,
} from '../support/https-receiver';

/** The harness the delivery suites rely on: it must really behave as each test programs it. */
describe('startHttpsReceiver', () => {
  const agent = new Agent({ connect: { ca: readFileSync(TEST_CA_FILE) } });
  let receiver: HttpsReceiver;

  beforeEach(async () => {
    receiver = await startHttpsReceiver();
  });
  afterEach(() => receiver.close());
  afterAll(() => agent.close());

  const post = (body: string, path = '/hook') =>
    request(`${receiver.url}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body,
    });

  it('answers 200 by default and records the request with its raw body', async () => {
    expect(receiver.url).toBe(`https://127.0.0.1:${receiver.port}`);
    const response = await post('{ "a": 1 }', '/hook?x=1');
    await response.body.dump();
    expect(response.statusCode).toBe(200);

    const [received] = await receiver.waitForRequests(1);
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/hook?x=1');
    expect(received.headers['x-test']).toBe('yes');
    expect(received.rawBody.toString('utf8')).toBe('{ "a": 1 }');
    expect(received.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it('waits the programmed delay before answering with the programmed status', async () => {
    receiver.respondWith({ status: 503, delayMs: 300 });
    const started = Date.now();
    const response = await post('{}');
    await response.body.dump();
    expect(response.statusCode).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('destroys the connection without an answer', async () => {
    receiver.respondWith({ destroySocket: true });
    await expect(post('{}')).rejects.toMatchObject({
      code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/),
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('redirects with 301 and a Location', async () => {
    receiver.respondWith({ redirectTo: 'https://example.com/elsewhere' });
    const response = await post('{}');
    await response.body.dump();
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('https://example.com/elsewhere');
  });

  it('answers each request as a function of it', async () => {
    receiver.respondWith((request, index) => ({
      status: index === 0 ? 500 : 204,
      headers: { 'x-echo': request.rawBody.toString() },
    }));
    const statuses: number[] = [];
    for (const body of ['first', 'second']) {
      const response = await post(body);
      await response.body.dump();
      statuses.push(response.statusCode);
      expect(response.headers['x-echo']).toBe(body);
    }
    expect(statuses).toEqual([500, 204]);
  });

  it('rejects waitForRequests when the requests do not come in time', async () => {
    await expect(receiver.waitForRequests(1, 50)).rejects.toThrow(/0 of 1 requests/);
  });

  it('closes promptly while an answer is still delayed', async () => {
    receiver.respondWith({ delayMs: 60_000 });
    const pending = post('{}');
    await receiver.waitForRequests(1);
    await receiver.close();
    await expect(pending).rejects.toBeDefined();
  });

  it('is refused by a client that does not trust the test CA', async () => {
    const untrusting = new Agent();
    try {
      await expect(
        request(receiver.url, { method: 'POST', body: '{}', dispatcher: untrusting }),
      ).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      await untrusting.close();
    }
  });
});

describe('refusedPort', () => {
  it('is a loopback port where connections are refused', async () => {
    const port = await refusedPort();
    await expect(request(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
