import {
  canonicalEndpointUrl,
  checkEndpointUrl,
  isPermittedAddress,
  PrivateNetworkAllowList,
} from './endpoint-url';

const none = new PrivateNetworkAllowList([]);
const loopback = new PrivateNetworkAllowList(['127.0.0.0/8', '::1/128']);

describe('checkEndpointUrl', () => {
  it.each([
    'https://hooks.example.com/svc',
    'https://hooks.example.com:8443/path?x=1',
    'https://93.184.216.34/in',
    'https://[2606:4700::1111]/in',
  ])('accepts %s', (url) => {
    expect(checkEndpointUrl(url, none)).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['not a url', /absolute URL/],
    ['/relative/path', /absolute URL/],
    ['https://user:pw@hooks.example.com/', /user information/],
    ['https://user@hooks.example.com/', /user information/],
    ['https://hooks.example.com/#frag', /fragment/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /2048/],
  ])('refuses %s', (url, reason) => {
    expect(checkEndpointUrl(url, none)).toMatch(reason);
  });

  it.each([
    'https://127.0.0.1/',
    'https://127.1.2.3:8443/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://224.0.0.1/',
    'https://localhost/',
    'https://api.localhost/',
  ])('refuses the non-public host of %s', (url) => {
    expect(checkEndpointUrl(url, none)).toMatch(/must not point to/);
  });

  it('admits loopback hosts only when the allow-list covers them', () => {
    expect(checkEndpointUrl('https://127.0.0.1:9443/in', loopback)).toBeNull();
    expect(checkEndpointUrl('https://[::1]:9443/in', loopback)).toBeNull();
    expect(checkEndpointUrl('https://localhost:9443/in', loopback)).toBeNull();
    expect(checkEndpointUrl('https://10.0.0.1/', loopback)).toMatch(/must not point to/);
  });
});

describe('what is shown is where it goes (ADR 0006, amendment of issue 17)', () => {
  it.each([
    // [typed, stored]: only the letter case of scheme and host, and an empty path, may differ
    ['https://hooks.example.com/svc', 'https://hooks.example.com/svc'],
    ['HTTPS://hooks.example.com/svc', 'https://hooks.example.com/svc'],
    ['https://HOOKS.Example.COM/Svc?Q=A', 'https://hooks.example.com/Svc?Q=A'],
    ['https://hooks.example.com', 'https://hooks.example.com/'],
    ['https://hooks.example.com:8443', 'https://hooks.example.com:8443/'],
    ['https://[2606:4700::ABCD]/in', 'https://[2606:4700::abcd]/in'],
    ['https://hooks.example.com/a%20b', 'https://hooks.example.com/a%20b'],
  ])('accepts %s and stores %s', (typed, stored) => {
    expect(checkEndpointUrl(typed, none)).toBeNull();
    expect(canonicalEndpointUrl(typed)).toBe(stored);
    expect(new URL(stored).href).toBe(stored);
  });

  it.each([
    [' https://hooks.example.com/svc', /canonical form/],
    ['https://hooks.example.com/svc ', /canonical form/],
    ['\nhttps://hooks.example.com/svc', /canonical form/],
    ['https://hooks.ex\tample.com/', /canonical form/],
    ['https://hooks.example.com/a\nb', /canonical form/],
    ['https:hooks.example.com/x', /canonical form/],
    ['https:/hooks.example.com/x', /canonical form/],
    ['https://hooks.example.com\\x', /canonical form/],
    ['https://hooks.example.com/a b', /canonical form/],
    ['https://hooks.example.com/a/../b', /canonical form/],
    ['https://hooks.example.com/ä', /canonical form/],
    ['https://bücher.example/', /canonical form/],
    ['https://\u212aey.example/', /canonical form/],
    ['https://hooks.example.com:443/x', /canonical form/],
    ['https://hooks.example.com:0/x', /port 0/],
    ['https://hooks.example.com:00/x', /port 0/],
    ['https://hooks.example.com./x', /trailing dot/],
    ['https://HOOKS.EXAMPLE.COM./x', /trailing dot/],
    ['https://8.8.8.8./x', /canonical form/],
    ['https://134744072/x', /canonical form/],
  ])('refuses %j', (typed, reason) => {
    expect(checkEndpointUrl(typed, none)).toMatch(reason);
  });

  it('names the canonical form it would have sent to', () => {
    expect(checkEndpointUrl('https://hooks.ex\tample.com/', none)).toContain(
      'https://hooks.example.com/',
    );
  });

  it.each(['https://LOCALHOST./', 'https://localhost./in', 'https://api.localhost./'])(
    'treats %s as localhost, that is loopback',
    (typed) => {
      expect(checkEndpointUrl(typed, none)).toMatch(/must not point to localhost/);
    },
  );

  it('refuses a trailing-dot localhost even where loopback is allowed', () => {
    expect(checkEndpointUrl('https://localhost./', loopback)).toMatch(/trailing dot/);
  });
});

describe('isPermittedAddress', () => {
  it('treats IPv4-mapped IPv6 like the IPv4 address it carries', () => {
    expect(isPermittedAddress('::ffff:8.8.8.8', none)).toBe(true);
    expect(isPermittedAddress('::ffff:192.168.0.1', none)).toBe(false);
    expect(isPermittedAddress('::ffff:127.0.0.1', loopback)).toBe(true);
  });
});
