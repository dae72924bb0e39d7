import { checkEndpointUrl, isPermittedAddress, PrivateNetworkAllowList } from './endpoint-url';

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

describe('isPermittedAddress', () => {
  it('treats IPv4-mapped IPv6 like the IPv4 address it carries', () => {
    expect(isPermittedAddress('::ffff:8.8.8.8', none)).toBe(true);
    expect(isPermittedAddress('::ffff:192.168.0.1', none)).toBe(false);
    expect(isPermittedAddress('::ffff:127.0.0.1', loopback)).toBe(true);
  });
});
