import {
  describeAuth,
  describeEndpoint,
  describeRetrySchedule,
  describeTimeout,
  EndpointAnswer,
} from './webhook-view';

const NOW = new Date('2026-11-27T12:00:00Z');

describe('describeAuth', () => {
  it('says each type in words, with what is not secret and that the secret is not shown', () => {
    expect(describeAuth(null)).toBe('none (deliveries carry only their signatures)');
    expect(
      describeAuth({
        type: 'headers',
        header_names: ['Authorization', 'X-Splunk-Request-Channel'],
      }),
    ).toBe(
      'headers Authorization, X-Splunk-Request-Channel (values stored encrypted, never shown)',
    );
    expect(describeAuth({ type: 'basic', username: 'svc' })).toBe(
      'HTTP Basic as svc (password stored encrypted, never shown)',
    );
    expect(
      describeAuth({
        type: 'oauth2_client_credentials',
        token_url: 'https://login.example.com/token',
        client_id: 'svc-webhooks',
        scope: 'events.write',
        audience: null,
      }),
    ).toBe(
      'OAuth 2.0 client credentials: client svc-webhooks, token from ' +
        'https://login.example.com/token, scope events.write (client secret stored encrypted, never shown)',
    );
  });

  const mtls = (notAfter: string) =>
    ({
      type: 'mtls',
      subject: 'O=Example, CN=svc-webhooks-delivery',
      issuer: 'CN=test client CA',
      not_after: notAfter,
      fingerprint_sha256: 'AB:CD',
    }) as const;

  it("names an mTLS certificate's subject, issuer, expiry and fingerprint", () => {
    expect(describeAuth(mtls('2126-01-01T00:00:00.000Z'), NOW)).toBe(
      'mutual TLS with the client certificate O=Example, CN=svc-webhooks-delivery, issued by ' +
        'CN=test client CA, expires 2126-01-01T00:00:00.000Z, SHA-256 AB:CD ' +
        '(private key stored encrypted, never shown)',
    );
  });

  it('says EXPIRED for a certificate past its end', () => {
    expect(describeAuth(mtls('2026-11-01T00:00:00.000Z'), NOW)).toContain(
      'EXPIRED 2026-11-01T00:00:00.000Z',
    );
  });

  it('shows a type it does not know as the API shows it', () => {
    expect(describeAuth({ type: 'kerberos', realm: 'X' } as never)).toBe('kerberos {"realm":"X"}');
  });
});

describe('the retry policy in words', () => {
  it('gives the endpoint’s own values, or default', () => {
    expect(describeRetrySchedule(['10s', '1m', '1h'])).toBe('10s, 1m, 1h (4 attempts at most)');
    expect(describeRetrySchedule(null)).toBe("default (the deployment's)");
    expect(describeTimeout(5)).toBe('5 s');
    expect(describeTimeout(null)).toBe("default (the deployment's)");
  });
});

describe('describeEndpoint', () => {
  it('prints one labelled line per field', () => {
    const endpoint: EndpointAnswer = {
      id: 'wh_01',
      url: 'https://hooks.example.com/a',
      events: ['alert.*', 'incident.created'],
      status: 'active',
      ordering: 'fifo',
      auth: { type: 'basic', username: 'svc' },
      retry_schedule: null,
      timeout_seconds: 3,
    };
    expect(describeEndpoint(endpoint, NOW)).toEqual([
      'endpoint        wh_01',
      'url             https://hooks.example.com/a',
      'events          alert.*, incident.created',
      'status          active',
      'ordering        fifo',
      'auth            HTTP Basic as svc (password stored encrypted, never shown)',
      "retry schedule  default (the deployment's)",
      'timeout         3 s',
    ]);
  });
});
