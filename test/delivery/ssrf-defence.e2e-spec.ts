import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { HttpSender } from '../../apps/delivery/src/dispatch/http-sender';
import { BlockedAddressError, safeLookup } from '../../apps/delivery/src/dispatch/safe-connector';
import { HttpsReceiver, startHttpsReceiver, TEST_CA_FILE } from '../support/https-receiver';

describe('SSRF defence at connect time (DESIGN "Delivery engine bars")', () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });
  afterAll(() => receiver.close());

  const sender = (allowed: string[]) =>
    new HttpSender({
      timeoutMs: 2000,
      allowList: new PrivateNetworkAllowList(allowed),
      extraCaFile: TEST_CA_FILE,
      connectionsPerOrigin: 2,
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
      expect(result.errorMessage).toMatch(
        /localhost resolves only to addresses deliveries may not reach/,
      );
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
});
