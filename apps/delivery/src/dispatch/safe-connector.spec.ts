import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import type { LookupAddress } from 'node:dns';
import { BlockedAddressError, resolveChecked, safeConnector, safeLookup } from './safe-connector';

/** The resolver's answers, injected: what a name resolves to is the attacker's choice. */
const answers = new Map<string, LookupAddress[]>();

jest.mock('node:dns', () => ({
  ...jest.requireActual('node:dns'),
  lookup: (
    hostname: string,
    _options: unknown,
    callback: (error: Error | null, addresses: LookupAddress[]) => void,
  ) => callback(null, answers.get(hostname) ?? []),
}));

const none = new PrivateNetworkAllowList([]);
const loopback = new PrivateNetworkAllowList(['127.0.0.0/8', '::1/128']);

function resolve(
  allowList: PrivateNetworkAllowList,
  hostname: string,
  all = true,
): Promise<{ error: Error | null; addresses: unknown }> {
  return new Promise((done) =>
    safeLookup(allowList)(hostname, { all }, (error, addresses) => done({ error, addresses })),
  );
}

describe('safeLookup: the connect-time check of a resolved name (ADR 0039)', () => {
  it.each([
    ['::a9fe:a9fe', 6],
    ['::a00:1', 6],
    ['::7f00:1', 6],
    ['64:ff9b::a9fe:a9fe', 6],
    ['2002:a9fe:a9fe::1', 6],
    ['2001:db8::1', 6],
    ['100::1', 6],
    ['198.18.0.1', 4],
    ['192.0.0.170', 4],
  ])('refuses a name that resolves only to %s, as "blocked address"', async (address, family) => {
    answers.set('rebound.example', [{ address, family }]);
    const { error } = await resolve(none, 'rebound.example');
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error?.message).toBe('blocked address');
    expect((error as BlockedAddressError).addresses).toEqual([address]);
  });

  it('hands the socket only the global unicast addresses of a name that resolves to several', async () => {
    answers.set('mixed.example', [
      { address: '::a9fe:a9fe', family: 6 },
      { address: '2606:4700::1111', family: 6 },
      { address: '::7f00:1', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
    expect((await resolve(none, 'mixed.example')).addresses).toEqual([
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
    const single = await resolve(none, 'mixed.example', false);
    expect(single).toEqual({ error: null, addresses: '2606:4700::1111' });
  });

  it('lets the allow-list admit loopback in the form it names, not IPv4-compatible loopback', async () => {
    answers.set('loop.example', [{ address: '::7f00:1', family: 6 }]);
    expect((await resolve(loopback, 'loop.example')).error).toBeInstanceOf(BlockedAddressError);
    answers.set('loop.example', [{ address: '127.0.0.1', family: 4 }]);
    expect((await resolve(loopback, 'loop.example')).addresses).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
  });
});

describe('safeConnector: the connect-time check of an address literal (ADR 0039)', () => {
  it.each(['[::a9fe:a9fe]', '[::a00:1]', '[::7f00:1]', '[64:ff9b::7f00:1]', '[2001:db8::1]'])(
    'refuses %s without connecting',
    async (hostname) => {
      const connect = safeConnector(none, {});
      const [error, socket] = await new Promise<[Error | null, unknown]>((done) =>
        connect(
          { hostname, host: hostname, protocol: 'https:', port: '443', servername: '' },
          (failure, connected) => done([failure, connected]),
        ),
      );
      expect(error).toBeInstanceOf(BlockedAddressError);
      expect(socket).toBeNull();
    },
  );
});

describe('resolveChecked: the one checked address a tunnel is asked for (ADR 0048)', () => {
  const checked = (allowList: PrivateNetworkAllowList, hostname: string) =>
    new Promise<[Error | null, unknown]>((done) =>
      resolveChecked(hostname, allowList, (error, address) => done([error, address])),
    );

  it('gives the first permitted address of a name, and refuses a name with none', async () => {
    answers.set('twice.example', [
      { address: '10.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ]);
    expect(await checked(none, 'twice.example')).toEqual([
      null,
      { address: '93.184.216.34', family: 4 },
    ]);
    answers.set('inside.example', [{ address: '10.0.0.1', family: 4 }]);
    const [error, address] = await checked(none, 'inside.example');
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(address).toBeNull();
  });

  it('checks address literals without resolving, brackets or not', async () => {
    expect(await checked(loopback, '127.0.0.1')).toEqual([
      null,
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(await checked(loopback, '[::1]')).toEqual([null, { address: '::1', family: 6 }]);
    expect((await checked(none, '[::1]'))[0]).toBeInstanceOf(BlockedAddressError);
    expect((await checked(none, '169.254.169.254'))[0]).toBeInstanceOf(BlockedAddressError);
  });
});
