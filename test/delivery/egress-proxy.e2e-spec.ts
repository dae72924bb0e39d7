import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { HttpSender } from '../../apps/delivery/src/dispatch/http-sender';
import { OAuthTokenCache } from '../../apps/delivery/src/dispatch/receiver-auth/oauth-token-cache';
import { ConnectProxy, startConnectProxy } from '../support/connect-proxy';
import {
  HttpsReceiver,
  startHttpsReceiver,
  TEST_CA_FILE,
  TEST_CLIENT_CERT_FILE,
  TEST_CLIENT_KEY_FILE,
} from '../support/https-receiver';
import { startOAuthTokenServer } from '../support/oauth-token-server';

/**
 * The egress proxy (ADR 0048) with a real CONNECT proxy and real receivers on loopback: the
 * engine checks the target against the SSRF rules itself and asks the proxy for the checked
 * address, TLS with the receiver inside the tunnel named by the endpoint's host.
 */

// IPv4 loopback only: `localhost` is then checked to 127.0.0.1, whatever else it resolves to.
const LOOPBACK_V4 = new PrivateNetworkAllowList(['127.0.0.0/8']);
const NOTHING_PRIVATE = new PrivateNetworkAllowList([]);

describe('deliveries through an egress proxy (ADR 0048)', () => {
  let receiver: HttpsReceiver;
  let proxy: ConnectProxy;
  const senders: HttpSender[] = [];

  const sender = (
    proxyUrl: string,
    options: { allowList?: PrivateNetworkAllowList; timeoutMs?: number } = {},
  ) => {
    const made = new HttpSender({
      timeoutMs: options.timeoutMs ?? 3000,
      allowList: options.allowList ?? LOOPBACK_V4,
      extraCaFile: TEST_CA_FILE,
      connectionsPerOrigin: 2,
      proxyUrl,
      onBlockedAddress: () => undefined,
    });
    senders.push(made);
    return made;
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    proxy = await startConnectProxy();
  });
  afterAll(async () => {
    await receiver.close();
    await proxy.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    proxy.connects.length = 0;
    proxy.refuseWith(null);
  });
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((made) => made.close()));
  });

  it('asks the proxy for the checked address while the receiver sees its host name', async () => {
    const tunnelsBefore = proxy.tunnels;
    const through = sender(proxy.url);
    const result = await through.post(`https://localhost:${receiver.port}/in?x=1`, '{"a":1}', {
      'content-type': 'application/json',
    });
    expect(result).toMatchObject({ succeeded: true, statusCode: 200 });
    expect(proxy.tunnels - tunnelsBefore).toBe(1);
    expect(proxy.connects).toEqual([
      {
        target: `127.0.0.1:${receiver.port}`,
        host: `127.0.0.1:${receiver.port}`,
        proxyAuthorization: undefined,
        status: 200,
      },
    ]);
    const [request] = await receiver.waitForRequests(1);
    expect(request.servername).toBe('localhost');
    expect(request.headers.host).toBe(`localhost:${receiver.port}`);
    expect(request.path).toBe('/in?x=1');
    expect(request.rawBody.toString()).toBe('{"a":1}');
    // Every tunnel asks for the checked address (undici may open a second connection).
    expect(await through.post(`https://localhost:${receiver.port}/again`, '{}', {})).toMatchObject({
      succeeded: true,
    });
    expect(proxy.connects.length).toBe(proxy.tunnels - tunnelsBefore);
    expect(new Set(proxy.connects.map((seen) => seen.target))).toEqual(
      new Set([`127.0.0.1:${receiver.port}`]),
    );
  });

  it('never asks the proxy for a target the SSRF rules refuse', async () => {
    const strict = sender(proxy.url, { allowList: NOTHING_PRIVATE });
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const result = await strict.post(`https://${host}:${receiver.port}/in`, '{}', {});
      expect(result).toMatchObject({
        succeeded: false,
        errorKind: 'blocked_address',
        errorMessage: 'blocked address',
      });
    }
    expect(proxy.connects).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it('checks the receiver certificate against the host inside the tunnel', async () => {
    const through = sender(proxy.url, { allowList: LOOPBACK_V4 });
    const hostile = await startConnectProxy();
    try {
      // Without the test CA, the receiver's certificate is refused inside the tunnel.
      const untrusting = new HttpSender({
        timeoutMs: 3000,
        allowList: LOOPBACK_V4,
        connectionsPerOrigin: 1,
        proxyUrl: hostile.url,
      });
      senders.push(untrusting);
      expect(
        await untrusting.post(`https://127.0.0.1:${receiver.port}/in`, '{}', {}),
      ).toMatchObject({ succeeded: false, errorKind: 'tls' });
      expect(hostile.tunnels).toBe(1);
      expect(receiver.requests).toHaveLength(0);
      // An IP literal: no SNI, the certificate still checked against the address.
      expect(await through.post(`https://127.0.0.1:${receiver.port}/in`, '{}', {})).toMatchObject({
        succeeded: true,
      });
      expect(receiver.requests[0].servername).toBeUndefined();
    } finally {
      await hostile.close();
    }
  });

  it('authenticates to the proxy when its URL has credentials, and names a refusal', async () => {
    const guarded = await startConnectProxy({ credentials: 'egress:s3cret-pw' });
    try {
      const through = sender(guarded.url);
      expect(await through.post(`${receiver.url}/in`, '{}', {})).toMatchObject({
        succeeded: true,
      });
      expect(guarded.connects[0].proxyAuthorization).toBe(
        `Basic ${Buffer.from('egress:s3cret-pw').toString('base64')}`,
      );
      const wrong = sender(`http://egress:not-it@127.0.0.1:${guarded.port}`);
      const refused = await wrong.post(`${receiver.url}/in`, '{}', {});
      expect(refused).toMatchObject({ succeeded: false, statusCode: null });
      expect(refused.errorMessage).toBe(
        'the egress proxy refused the tunnel: answered 407 Proxy Authentication Required',
      );
      expect(refused.errorMessage).not.toMatch(/not-it|egress:/);
    } finally {
      await guarded.close();
    }
  });

  it('fails the attempt with the status of a proxy that refuses the tunnel', async () => {
    proxy.refuseWith(403);
    const result = await sender(proxy.url).post(`${receiver.url}/in`, '{}', {});
    expect(result).toMatchObject({
      succeeded: false,
      statusCode: null,
      errorMessage: 'the egress proxy refused the tunnel: answered 403 Forbidden',
    });
    expect(proxy.connects).toHaveLength(1);
    expect(receiver.requests).toHaveLength(0);
  });

  it('ends at the deadline a proxy that never answers, closing the connection to it', async () => {
    const silent: Server = createServer();
    const open = new Set<Socket>();
    let accepted = 0;
    silent.on('connection', (socket) => {
      accepted++;
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
      // Reads (and ignores) the CONNECT, so that the client's close is seen.
      socket.resume();
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const result = await sender(`http://127.0.0.1:${port}`, { timeoutMs: 400 }).post(
        `${receiver.url}/in`,
        '{}',
        {},
      );
      expect(result).toMatchObject({ succeeded: false, errorKind: 'timeout' });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(accepted).toBe(1);
      // The connector's own deadline destroys what it opened: nothing stays connected.
      const deadline = Date.now() + 2000;
      while (open.size > 0 && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 25));
      }
      expect(open.size).toBe(0);
    } finally {
      open.forEach((socket) => socket.destroy());
      await new Promise<void>((done) => silent.close(() => done()));
    }
  });

  it('reports a proxy that cannot be reached', async () => {
    const unreachable = await startConnectProxy();
    const url = unreachable.url;
    await unreachable.close();
    const result = await sender(url).post(`${receiver.url}/in`, '{}', {});
    expect(result).toMatchObject({ succeeded: false, errorKind: 'connection_refused' });
    expect(result.errorMessage).toMatch(/^egress proxy unreachable/);
  });

  it('carries mutual TLS and the OAuth token requests through the proxy too', async () => {
    const mtlsReceiver = await startHttpsReceiver({ requireClientCertificate: true });
    const tokenServer = await startOAuthTokenServer({ clientId: 'id', clientSecret: 'secret' });
    try {
      const through = sender(proxy.url);
      const result = await through.post(
        `${mtlsReceiver.url}/in`,
        '{}',
        {},
        {
          clientCertificate: {
            poolKey: 'ep_m@1',
            certificate: readFileSync(TEST_CLIENT_CERT_FILE, 'utf8'),
            privateKey: readFileSync(TEST_CLIENT_KEY_FILE, 'utf8'),
          },
        },
      );
      expect(result).toMatchObject({ succeeded: true, statusCode: 200 });
      expect(mtlsReceiver.requests[0].clientCertificateSubject).toMatchObject({
        CN: 'svc-webhooks-delivery',
      });
      const tokens = new OAuthTokenCache({
        dispatcher: through.sharedDispatcher,
        timeoutMs: 3000,
      });
      const token = await tokens.token('ep_o@1', {
        type: 'oauth2_client_credentials',
        token_url: tokenServer.tokenUrl,
        client_id: 'id',
        client_secret: 'secret',
      });
      expect(token).toBe(tokenServer.latest());
      expect(proxy.connects.map((seen) => seen.target)).toEqual([
        `127.0.0.1:${mtlsReceiver.port}`,
        `127.0.0.1:${tokenServer.port}`,
      ]);
    } finally {
      await mtlsReceiver.close();
      await tokenServer.close();
    }
  });
});
