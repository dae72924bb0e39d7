import {
  authorityOf,
  CONNECT_ANSWER_LIMIT_BYTES,
  connectRequest,
  egressProxyOf,
  readConnectAnswer,
} from './egress-proxy-connector';

describe('the egress proxy CONNECT exchange (ADR 0048)', () => {
  it('reads the proxy URL, decoding credentials into a Basic Proxy-Authorization', () => {
    expect(egressProxyOf('http://proxy.internal:3128')).toEqual({
      host: 'proxy.internal',
      port: 3128,
      authorization: null,
    });
    expect(egressProxyOf('http://egress:p%40ss%3Aword@10.0.0.5')).toEqual({
      host: '10.0.0.5',
      port: 80,
      authorization: `Basic ${Buffer.from('egress:p@ss:word').toString('base64')}`,
    });
    expect(egressProxyOf('http://[fd00::5]:8080').host).toBe('fd00::5');
    expect(() => egressProxyOf('https://proxy.internal:3128')).toThrow(/must be http/);
  });

  it('asks for the checked address, IPv6 in brackets, Host the same', () => {
    expect(authorityOf('93.184.216.34', 443)).toBe('93.184.216.34:443');
    expect(authorityOf('2606:4700::1111', 8443)).toBe('[2606:4700::1111]:8443');
    expect(connectRequest('[2606:4700::1111]:443', null)).toBe(
      'CONNECT [2606:4700::1111]:443 HTTP/1.1\r\nHost: [2606:4700::1111]:443\r\n\r\n',
    );
    expect(connectRequest('1.2.3.4:443', 'Basic eDp5')).toBe(
      'CONNECT 1.2.3.4:443 HTTP/1.1\r\nHost: 1.2.3.4:443\r\nProxy-Authorization: Basic eDp5\r\n\r\n',
    );
  });

  it('waits for the end of the head, then reads the status and reason', () => {
    expect(readConnectAnswer(Buffer.from('HTTP/1.1 200 Connection established\r\n'))).toBeNull();
    expect(
      readConnectAnswer(Buffer.from('HTTP/1.1 200 Connection established\r\nVia: p\r\n\r\n')),
    ).toEqual({ statusCode: 200, reason: 'Connection established', rest: Buffer.alloc(0) });
    expect(readConnectAnswer(Buffer.from('HTTP/1.0 403\r\n\r\nxy'))).toEqual({
      statusCode: 403,
      reason: '',
      rest: Buffer.from('xy'),
    });
    // The reason is the proxy's text: only printable, bounded.
    const odd = readConnectAnswer(
      Buffer.from(`HTTP/1.1 502 Bad\x1b[31m ${'x'.repeat(200)}\r\n\r\n`),
    );
    expect(odd?.reason).toMatch(/^Bad\[31m x+$/);
    expect(odd?.reason.length).toBe(80);
  });

  it('gives up on an answer that is not HTTP/1.x or has no end within the limit', () => {
    expect(() => readConnectAnswer(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(
      /something other than HTTP\/1\.x/,
    );
    expect(() => readConnectAnswer(Buffer.alloc(CONNECT_ANSWER_LIMIT_BYTES, 'a'))).toThrow(
      /no end within 8192 bytes/,
    );
    const long = `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(CONNECT_ANSWER_LIMIT_BYTES)}\r\n\r\n`;
    expect(() => readConnectAnswer(Buffer.from(long))).toThrow(/longer than 8192 bytes/);
  });
});
