import {
  certificateExpiry,
  describeErrorKind,
  describeFailure,
  excerpt,
  formatCount,
  formatDateTime,
  formatHour,
  formatLatency,
  formatOrdering,
  formatRate,
  formatRateLimit,
  formatReceiverAuthType,
  formatRetrySchedule,
  formatSignatureScheme,
  formatTimeout,
} from './display-format';

describe('display formats', () => {
  it('writes times in UTC', () => {
    expect(formatDateTime('2026-03-01T12:00:05.123Z')).toBe('2026-03-01 12:00:05 UTC');
    expect(formatDateTime('2026-03-01T13:00:05+01:00')).toBe('2026-03-01 12:00:05 UTC');
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime('soon')).toBe('soon');
    expect(formatHour('2026-03-01T14:00:00Z', false)).toBe('14:00');
    expect(formatHour('2026-03-01T14:00:00Z', true)).toBe('03-01 14:00');
  });

  it('writes rates, latencies, counts and limits', () => {
    expect(formatRate(1)).toBe('100%');
    expect(formatRate(0.9951)).toBe('99.5%');
    expect(formatRate(0)).toBe('0%');
    expect(formatRate(null)).toBe('no attempts');
    expect(formatLatency(849.6)).toBe('850 ms');
    expect(formatLatency(1234)).toBe('1.2 s');
    expect(formatLatency(null)).toBe('—');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatRateLimit(null)).toBe('unlimited');
    expect(formatRateLimit(2500)).toBe('2,500 per second');
  });

  it('names signature schemes as receivers know them', () => {
    expect(formatSignatureScheme('hmac-sha256')).toBe('HMAC-SHA256');
    expect(formatSignatureScheme('ed25519')).toBe('Ed25519');
  });

  it('words the delivery order', () => {
    expect(formatOrdering('unordered')).toBe('Any order');
    expect(formatOrdering('fifo')).toBe('One at a time, in order (FIFO)');
  });

  it('cuts long text and words error kinds', () => {
    expect(excerpt('abcdef', 4)).toBe('abc…');
    expect(excerpt('abc', 4)).toBe('abc');
    expect(excerpt(null)).toBe('');
    expect(describeErrorKind('timeout')).toBe('no answer in time');
    expect(describeErrorKind('new_kind')).toBe('new kind');
    expect(describeErrorKind(null)).toBe('');
  });

  it('says why an attempt failed, once', () => {
    const status = { status_code: 500, error_kind: 'http_status', error_message: 'answered 500' };
    expect(describeFailure(status)).toBe('HTTP 500');
    expect(describeFailure(status, false)).toBe('');
    const tls = { status_code: null, error_kind: 'tls', error_message: 'certificate has expired' };
    expect(describeFailure(tls)).toBe(
      'TLS handshake or certificate failed: certificate has expired',
    );
    expect(describeFailure({ status_code: 302, error_kind: 'redirect', error_message: null })).toBe(
      'HTTP 302: the receiver answered with a redirect (not followed)',
    );
    expect(describeFailure({ status_code: null, error_kind: null, error_message: null })).toBe('');
  });

  it('names the receiver authentication types in words', () => {
    expect(formatReceiverAuthType('headers')).toBe('Extra headers');
    expect(formatReceiverAuthType('basic')).toBe('HTTP Basic');
    expect(formatReceiverAuthType('oauth2_client_credentials')).toBe(
      'OAuth 2.0 client credentials',
    );
    expect(formatReceiverAuthType('mtls')).toBe('Mutual TLS (client certificate)');
  });

  it('says whether a client certificate has expired or expires within 30 days', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    expect(certificateExpiry('2026-03-01T11:59:59Z', now)).toBe('expired');
    expect(certificateExpiry('2026-03-01T12:00:00Z', now)).toBe('expired');
    expect(certificateExpiry('2026-03-01T12:00:01Z', now)).toBe('soon');
    expect(certificateExpiry('2026-03-31T12:00:00Z', now)).toBe('soon');
    expect(certificateExpiry('2026-03-31T12:00:01Z', now)).toBe('valid');
    expect(certificateExpiry('2126-01-01T00:00:00.000Z', now)).toBe('valid');
  });

  it("writes a retry schedule with its attempts, and the timeout; null is the deployment's", () => {
    expect(formatRetrySchedule(['10s', '1m'])).toBe('10s, 1m (3 attempts)');
    expect(formatRetrySchedule(['24h'])).toBe('24h (2 attempts)');
    expect(formatRetrySchedule(null)).toBe('default');
    expect(formatTimeout(5)).toBe('5 seconds');
    expect(formatTimeout(1)).toBe('1 second');
    expect(formatTimeout(null)).toBe('default');
  });
});
