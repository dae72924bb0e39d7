import { accountThrottleKey, addressThrottleKey, ClientAddresses } from './client-address';

describe('the client address of a sign-in', () => {
  const behindProxies = new ClientAddresses(['10.0.0.0/8', '127.0.0.1/32', 'fd00::/8']);
  const direct = new ClientAddresses([]);

  it.each([
    // peer, X-Forwarded-For, address
    ['203.0.113.7', undefined, '203.0.113.7'],
    ['203.0.113.7', '198.51.100.1', '203.0.113.7'],
    ['::ffff:203.0.113.7', undefined, '203.0.113.7'],
    ['2001:db8::1', '198.51.100.1', '2001:db8::1'],
    [undefined, '198.51.100.1', 'unknown'],
  ])('directly exposed: peer %s with X-Forwarded-For %s is %s', (peer, forwarded, address) => {
    expect(direct.of(peer, forwarded)).toBe(address);
  });

  it.each([
    // the rightmost address not of a trusted proxy
    ['10.1.2.3', '198.51.100.1', '198.51.100.1'],
    ['10.1.2.3', '192.0.2.66, 198.51.100.1', '198.51.100.1'],
    ['10.1.2.3', '192.0.2.66, 198.51.100.1, 10.9.9.9', '198.51.100.1'],
    ['10.1.2.3', ['192.0.2.66', '198.51.100.1, 10.9.9.9'], '198.51.100.1'],
    ['::ffff:127.0.0.1', ' 198.51.100.1 ', '198.51.100.1'],
    ['10.1.2.3', '[2001:db8::5]:4711', '2001:db8::5'],
    ['10.1.2.3', '198.51.100.1:4711', '198.51.100.1'],
    ['10.1.2.3', 'fd00::1, 2001:db8::7', '2001:db8::7'],
    // only proxies: the leftmost one
    ['10.1.2.3', '10.0.0.9, 10.0.0.8', '10.0.0.9'],
    // no header: the proxy itself
    ['10.1.2.3', undefined, '10.1.2.3'],
    ['10.1.2.3', '', '10.1.2.3'],
    // garbage written by someone untrusted: the last address we can vouch for
    ['10.1.2.3', 'not-an-address', '10.1.2.3'],
    ['10.1.2.3', '198.51.100.1, garbage, 10.0.0.8', '10.0.0.8'],
    // an untrusted peer's header is ignored
    ['203.0.113.7', '10.0.0.1', '203.0.113.7'],
  ])('behind proxies: peer %s with X-Forwarded-For %j is %s', (peer, forwarded, address) => {
    expect(behindProxies.of(peer, forwarded)).toBe(address);
  });

  it('keys IPv4 addresses whole and IPv6 addresses by their /64', () => {
    expect(addressThrottleKey('203.0.113.7')).toBe('address:203.0.113.7');
    expect(addressThrottleKey('2001:db8:1:2:aaaa::1')).toBe('address:2001:db8:1:2::/64');
    expect(addressThrottleKey('2001:db8:1:2:bbbb::9')).toBe('address:2001:db8:1:2::/64');
    expect(addressThrottleKey('unknown')).toBe('address:unknown');
  });

  it('keys accounts by the email as typed, lowercased, or by a hash when it cannot be stored', () => {
    expect(accountThrottleKey(' Ada@Example.com ')).toBe('account:ada@example.com');
    for (const odd of ['a\u0000b@example.com', 'a\ud800b@example.com', 'x'.repeat(321)]) {
      expect(accountThrottleKey(odd)).toMatch(/^account:sha256:[0-9a-f]{64}$/);
    }
    expect(accountThrottleKey('a\u0000b@example.com')).not.toBe(
      accountThrottleKey('a\u0000c@example.com'),
    );
  });
});
