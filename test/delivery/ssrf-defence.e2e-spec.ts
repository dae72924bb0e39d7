import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { HttpSender } from '../../apps/delivery/src/dispatch/http-sender';
import { BlockedAddressError, safeLookup } from '../../apps/delivery/src/dispatch/safe-connector';
import { startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, startHttpsReceiver, TEST_CA_FILE } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

describe('SSRF defence at connect time (DESIGN "Delivery engine bars")', () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });
  afterAll(() => receiver.close());

  const blockedReports: Array<{ host: string; addresses: string[]; detail: string }> = [];
  const sender = (allowed: string[]) =>
    new HttpSender({
      timeoutMs: 2000,
      allowList: new PrivateNetworkAllowList(allowed),
      extraCaFile: TEST_CA_FILE,
      connectionsPerOrigin: 2,
      onBlockedAddress: (blocked) => void blockedReports.push(blocked),
    });

  it('refuses a host name that resolves to a loopback address, as after DNS rebinding, without connecting', async () => {
    const strict = sender([]);
    try {
      const result = await strict.post(`https://localhost:${receiver.port}/in`, '{}', {});
      expect(result).toMatchObject({
        succeeded: false,
        statusCode: null,
        errorKind: 'blocked_address',
      });
      // The tenant sees that the address was blocked, never how our resolver sees the name.
      expect(result.errorMessage).toBe('blocked address');
      expect(result.errorMessage).not.toMatch(/127\.0\.0\.1|::1|localhost|resolves/);
      // Operators get the detail in the engine's log.
      expect(blockedReports.at(-1)).toMatchObject({
        host: 'localhost',
        detail: expect.stringMatching(
          /localhost resolves only to addresses deliveries may not reach \(.*127\.0\.0\.1/,
        ),
      });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('refuses an address literal outside the allow-list', async () => {
    const strict = sender(['10.0.0.0/8']);
    try {
      const result = await strict.post(`https://127.0.0.1:${receiver.port}/in`, '{}', {});
      expect(result.errorKind).toBe('blocked_address');
      expect(result.errorMessage).toBe('blocked address');
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('connects when the allow-list covers the address, and verifies the certificate', async () => {
    const permissive = sender(['127.0.0.0/8', '::1/128']);
    try {
      expect(
        await permissive.post(`https://localhost:${receiver.port}/in`, '{}', {}),
      ).toMatchObject({ succeeded: true, statusCode: 200 });
      expect(
        await permissive.post(`https://127.0.0.1:${receiver.port}/in`, '{}', {}),
      ).toMatchObject({ succeeded: true });
    } finally {
      await permissive.close();
    }
    const untrusting = new HttpSender({
      timeoutMs: 2000,
      allowList: new PrivateNetworkAllowList(['127.0.0.0/8']),
      connectionsPerOrigin: 1,
    });
    try {
      expect(
        await untrusting.post(`https://127.0.0.1:${receiver.port}/in`, '{}', {}),
      ).toMatchObject({ succeeded: false, errorKind: 'tls' });
    } finally {
      await untrusting.close();
    }
  });

  it('refuses plain http outright', async () => {
    const permissive = sender(['127.0.0.0/8']);
    try {
      expect(await permissive.post(`http://127.0.0.1:${receiver.port}/in`, '{}', {})).toMatchObject(
        { succeeded: false, errorKind: 'other' },
      );
    } finally {
      await permissive.close();
    }
  });

  it('hands the socket only permitted addresses when a name resolves to several', (done) => {
    const lookup = safeLookup(new PrivateNetworkAllowList(['::1/128']));
    lookup('localhost', { all: true }, (error, addresses) => {
      try {
        if (error) {
          // On a machine where localhost is only 127.0.0.1, nothing is permitted.
          expect(error).toBeInstanceOf(BlockedAddressError);
        } else {
          expect((addresses as { address: string }[]).map((a) => a.address)).toEqual(['::1']);
        }
        done();
      } catch (failure) {
        done(failure);
      }
    });
  });

  it('records "blocked address" for the tenant, with no address or resolution in the attempt log', async () => {
    // The API accepts the loopback endpoint (its allow-list covers it); the engine does not.
    const stack = await startDeliveryStack({}, { inProcessEngine: false });
    try {
      await stack.startEngine({ WEBHOOK_ALLOWED_PRIVATE_CIDRS: '' });
      const { tenantId, key } = await stack.newTenant();
      const endpoint = await stack.registerEndpoint(key, `https://localhost:${receiver.port}/in`);
      await stack.publish(tenantId);
      const attempt = await waitFor(
        async () => {
          const answer = await http(
            stack.api.baseUrl,
            'GET',
            `/v1/webhooks/${endpoint.id}/attempts`,
            { key },
          );
          return answer.body.data?.[0] as Record<string, unknown> | undefined;
        },
        { what: 'the blocked attempt' },
      );
      expect(attempt).toMatchObject({
        error_kind: 'blocked_address',
        error_message: 'blocked address',
      });
      expect(JSON.stringify(attempt)).not.toMatch(/127\.0\.0\.1|::1|resolves/);
    } finally {
      await stack.close();
    }
  });
});
