import { errorKindOf, resultOfStatus, parseRetryAfter } from './attempt-result';

describe('resultOfStatus', () => {
  it.each([200, 201, 202, 204, 299])('counts %s as success', (status) => {
    expect(resultOfStatus(status, 12, 'ok')).toEqual({
      succeeded: true,
      statusCode: status,
      errorKind: null,
      errorMessage: null,
      latencyMs: 12,
      responseExcerpt: 'ok',
    });
  });

  it.each([
    [301, 'redirect'],
    [302, 'redirect'],
    [304, 'redirect'],
    [400, 'http_status'],
    [401, 'http_status'],
    [500, 'http_status'],
    [503, 'http_status'],
    [100, 'http_status'],
  ])('counts %s as a failure of kind %s', (status, kind) => {
    expect(resultOfStatus(status, 1, null)).toMatchObject({
      succeeded: false,
      statusCode: status,
      errorKind: kind,
    });
  });
});

describe('errorKindOf', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it.each([
    [withCode('ECONNREFUSED'), 'connection_refused'],
    [withCode('ECONNRESET'), 'connection_reset'],
    [withCode('UND_ERR_SOCKET'), 'connection_reset'],
    [withCode('ENOTFOUND'), 'dns'],
    [withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    [withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    [withCode('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    [withCode('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    [Object.assign(new Error('t'), { name: 'TimeoutError' }), 'timeout'],
    [Object.assign(new Error('b'), { name: 'BlockedAddressError' }), 'blocked_address'],
    [new Error('odd'), 'other'],
    ['not an error', 'other'],
  ])('classifies %s', (error, kind) => {
    expect(errorKindOf(error)).toBe(kind);
  });

  it('looks through causes', () => {
    expect(errorKindOf(new Error('fetch failed', { cause: withCode('ECONNREFUSED') }))).toBe(
      'connection_refused',
    );
  });

  it('counts a failed token request as auth_token, whatever caused it (ADR 0048)', () => {
    const tokenError = (cause?: unknown) =>
      Object.assign(new Error('token endpoint unreachable', { cause }), {
        name: 'TokenRequestError',
      });
    expect(errorKindOf(tokenError())).toBe('auth_token');
    expect(errorKindOf(tokenError(withCode('ECONNREFUSED')))).toBe('auth_token');
    expect(
      errorKindOf(tokenError(Object.assign(new Error('b'), { name: 'BlockedAddressError' }))),
    ).toBe('auth_token');
    // Only the outer error decides: a receiver's own failure is still its own.
    expect(errorKindOf(new Error('x', { cause: withCode('ECONNRESET') }))).toBe('connection_reset');
  });
});

describe('parseRetryAfter (RFC 9110 10.2.3)', () => {
  const now = new Date('2026-11-25T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, from now; a date in the past is 0', () => {
    expect(parseRetryAfter('Wed, 25 Nov 2026 10:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent or not a delay', () => {
    for (const header of [undefined, '', 'soon', '-5', '1.5', '12345678901']) {
      expect(parseRetryAfter(header, now)).toBeNull();
    }
    expect(parseRetryAfter(['30', '60'], now)).toBe(30_000);
  });
});
