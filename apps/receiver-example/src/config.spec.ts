import { DEFAULT_GAP_WINDOW_MS } from '@svc/webhook-receiver';
import { durationMsOf, readReceiverConfig, ReceiverConfigError } from './config';

describe('readReceiverConfig', () => {
  it('defaults to port 9000 and plain HTTP', () => {
    expect(readReceiverConfig({ RECEIVER_SECRET: 's3cret-s3cret-s3cret' })).toEqual({
      port: 9000,
      secret: 's3cret-s3cret-s3cret',
      gapWindowMs: DEFAULT_GAP_WINDOW_MS,
    });
  });

  it('reads the port and both TLS files', () => {
    expect(
      readReceiverConfig({
        RECEIVER_SECRET: 'x',
        RECEIVER_PORT: '8443',
        RECEIVER_TLS_CERT: '/etc/receiver/cert.pem',
        RECEIVER_TLS_KEY: '/etc/receiver/key.pem',
      }),
    ).toEqual({
      port: 8443,
      secret: 'x',
      gapWindowMs: DEFAULT_GAP_WINDOW_MS,
      tls: { certFile: '/etc/receiver/cert.pem', keyFile: '/etc/receiver/key.pem' },
    });
  });

  it('reads the secret a rotation replaced, when given', () => {
    expect(
      readReceiverConfig({ RECEIVER_SECRET: 'new-secret', RECEIVER_PREVIOUS_SECRET: 'old-secret' }),
    ).toMatchObject({ secret: 'new-secret', previousSecret: 'old-secret' });
    expect(
      readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_PREVIOUS_SECRET: '' }),
    ).not.toHaveProperty('previousSecret');
  });

  it('requires the secret, the JWKS URL or both', () => {
    expect(() => readReceiverConfig({})).toThrow(/RECEIVER_SECRET or RECEIVER_JWKS_URL/);
    expect(() => readReceiverConfig({ RECEIVER_SECRET: '' })).toThrow(ReceiverConfigError);
  });

  it('reads the JWKS URL of an ed25519 endpoint, alone or beside the secret', () => {
    const url = 'https://api.example.com/.well-known/webhook-signing-keys.json';
    expect(readReceiverConfig({ RECEIVER_JWKS_URL: url })).toEqual({
      port: 9000,
      jwksUrl: url,
      gapWindowMs: DEFAULT_GAP_WINDOW_MS,
    });
    expect(readReceiverConfig({ RECEIVER_JWKS_URL: url, RECEIVER_SECRET: 'x' })).toEqual({
      port: 9000,
      gapWindowMs: DEFAULT_GAP_WINDOW_MS,
      secret: 'x',
      jwksUrl: url,
    });
  });

  it('refuses a JWKS URL that is not http(s), and a previous secret without a secret', () => {
    expect(() => readReceiverConfig({ RECEIVER_JWKS_URL: 'ftp://x/keys.json' })).toThrow(
      /RECEIVER_JWKS_URL: must be/,
    );
    expect(() =>
      readReceiverConfig({ RECEIVER_JWKS_URL: 'https://x/', RECEIVER_PREVIOUS_SECRET: 'old' }),
    ).toThrow(/RECEIVER_PREVIOUS_SECRET: needs RECEIVER_SECRET/);
  });

  it.each(['abc', '-1', '65536', '80.5', ' 80', '123456'])('refuses the port %j', (port) => {
    expect(() => readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_PORT: port })).toThrow(
      /RECEIVER_PORT/,
    );
  });

  it('refuses a certificate without its key, and a key without its certificate', () => {
    expect(() => readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_TLS_CERT: 'c.pem' })).toThrow(
      /give both/,
    );
    expect(() => readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_TLS_KEY: 'k.pem' })).toThrow(
      /give both/,
    );
  });

  it('reads the window after which a missing sequence number is logged', () => {
    expect(
      readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_GAP_WINDOW: '2h' }).gapWindowMs,
    ).toBe(7_200_000);
    expect(readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_GAP_WINDOW: '' }).gapWindowMs).toBe(
      DEFAULT_GAP_WINDOW_MS,
    );
  });

  it.each(['45', '0m', '-5m', '1.5h', '45 m', '1d', 'soon'])(
    'refuses the gap window %j',
    (window) => {
      expect(() =>
        readReceiverConfig({ RECEIVER_SECRET: 'x', RECEIVER_GAP_WINDOW: window }),
      ).toThrow(/RECEIVER_GAP_WINDOW: must be a duration/);
    },
  );

  it('reports every problem at once', () => {
    try {
      readReceiverConfig({ RECEIVER_PORT: 'x', RECEIVER_TLS_KEY: 'k.pem' });
      throw new Error('expected a ReceiverConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ReceiverConfigError);
      expect((error as ReceiverConfigError).problems).toHaveLength(3);
    }
  });
});

describe('durationMsOf', () => {
  it('reads milliseconds, seconds, minutes and hours', () => {
    expect(['500ms', '90s', '45m', '2h'].map(durationMsOf)).toEqual([
      500, 90_000, 2_700_000, 7_200_000,
    ]);
  });
});
