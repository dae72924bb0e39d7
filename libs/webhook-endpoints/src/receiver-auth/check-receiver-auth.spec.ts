import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PrivateNetworkAllowList } from '../rules/endpoint-url';
import { checkReceiverAuth, MAX_AUTH_HEADERS } from './check-receiver-auth';

const tls = (name: string): string =>
  readFileSync(resolve(__dirname, '../../../../test/fixtures/tls', name), 'utf8');

const now = new Date('2026-11-27T12:00:00Z');
const check = (raw: unknown) => checkReceiverAuth(raw, now);
const fields = (raw: unknown) => check(raw).violations.map((violation) => violation.field);

/** The one violation of `raw`, which must have exactly one. */
function onlyViolation(raw: unknown) {
  const { auth, violations } = check(raw);
  expect(auth).toBeNull();
  expect(violations).toHaveLength(1);
  return violations[0];
}

const SECRET = 'sk_live_4f9a8b7c6d5e';

describe('checkReceiverAuth: the envelope', () => {
  it('reads null as removing auth', () => {
    expect(check(null)).toEqual({ auth: null, violations: [] });
  });

  it.each([
    ['a string', 'basic'],
    ['an array', []],
    ['a number', 1],
    ['a boolean', true],
  ])('refuses %s', (_, raw) => {
    expect(onlyViolation(raw)).toEqual({
      field: 'auth',
      detail: expect.stringMatching(/must be an object with a type .*null to remove it/),
    });
  });

  it('requires a type and lists the known ones', () => {
    expect(onlyViolation({ username: 'a', password: 'b' })).toEqual({
      field: 'auth.type',
      detail: 'is required; known: headers, basic, oauth2_client_credentials, mtls',
    });
  });

  it('names an unknown type, quoting it only when it looks like one', () => {
    expect(onlyViolation({ type: 'bearer', token: SECRET })).toEqual({
      field: 'auth.type',
      detail: 'unknown auth type: bearer; known: headers, basic, oauth2_client_credentials, mtls',
    });
    expect(onlyViolation({ type: 'Bearer sk_live x' }).detail).not.toContain('sk_live');
    expect(onlyViolation({ type: 42 }).field).toBe('auth.type');
    // Spelled exactly.
    expect(onlyViolation({ type: 'Basic', username: 'a', password: 'b' }).field).toBe('auth.type');
  });

  it("refuses every property that is not one of the type's fields", () => {
    const { auth, violations } = check({
      type: 'basic',
      username: 'splunk',
      password: SECRET,
      token: SECRET,
      'odd name': 1,
    });
    expect(auth).toBeNull();
    expect(violations).toEqual([
      {
        field: 'auth.token',
        detail: 'is not a field of auth type basic; its fields: type, username, password',
      },
      {
        field: 'auth["odd name"]',
        detail: expect.stringMatching(/not a field of auth type basic/),
      },
    ]);
  });

  it('reports every problem at once', () => {
    expect(
      fields({ type: 'oauth2_client_credentials', token_url: 'http://x.example/', grant: 'x' }),
    ).toEqual(['auth.grant', 'auth.token_url', 'auth.client_id', 'auth.client_secret']);
  });
});

describe('checkReceiverAuth: headers', () => {
  it('accepts Authorization (Splunk HEC) and returns a fresh object, names as written', () => {
    const raw = {
      type: 'headers',
      headers: { Authorization: `Splunk ${SECRET}`, 'X-Splunk-Request-Channel': 'abc\tdef' },
    };
    const { auth, violations } = check(raw);
    expect(violations).toEqual([]);
    expect(auth).toEqual(raw);
    expect(auth).not.toBe(raw);
    expect(auth?.type === 'headers' && auth.headers).not.toBe(raw.headers);
  });

  it(`accepts 1 to ${MAX_AUTH_HEADERS} headers`, () => {
    const headers = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`X-Key-${i}`, `v${i}`]));
    expect(check({ type: 'headers', headers: headers(1) }).violations).toEqual([]);
    expect(check({ type: 'headers', headers: headers(10) }).violations).toEqual([]);
    expect(onlyViolation({ type: 'headers', headers: headers(11) })).toEqual({
      field: 'auth.headers',
      detail: 'must have 1 to 10 headers; it has 11',
    });
    expect(onlyViolation({ type: 'headers', headers: {} }).detail).toMatch(/it has 0/);
  });

  it.each([
    ['missing', undefined, /is required/],
    ['null', null, /is required/],
    ['an array', [['Authorization', 'x']], /must be an object of header names/],
    ['a string', 'Authorization: x', /must be an object of header names/],
  ])('refuses headers that are %s', (_, headers, detail) => {
    expect(onlyViolation({ type: 'headers', headers })).toEqual({
      field: 'auth.headers',
      detail: expect.stringMatching(detail),
    });
  });

  it.each([
    ['Connection', /hop-by-hop/],
    ['keep-alive', /hop-by-hop/],
    ['Proxy-Authenticate', /hop-by-hop/],
    ['Proxy-Authorization', /hop-by-hop/],
    ['Proxy-Connection', /hop-by-hop/],
    ['TE', /hop-by-hop/],
    ['Trailer', /hop-by-hop/],
    ['Transfer-Encoding', /hop-by-hop/],
    ['Upgrade', /hop-by-hop/],
    ['Host', /set from the endpoint URL/],
    ['HOST', /set from the endpoint URL/],
    ['Expect', /how the request is sent/],
    ['Content-Type', /describes the body/],
    ['content-length', /describes the body/],
    ['Content-Encoding', /describes the body/],
    ['Content-Anything', /describes the body/],
    ['User-Agent', /engine's own/],
    ['X-SVC-Signature-256', /reserved for the delivery's signature and identity/],
    ['x-svc-event-id', /reserved/],
    ['X-Svc-Tenant', /reserved/],
    ['webhook-signature', /reserved/],
    ['Webhook-Id', /reserved/],
    ['webhook-timestamp', /reserved/],
  ])('refuses %s, naming it as written', (name, reason) => {
    expect(onlyViolation({ type: 'headers', headers: { [name]: 'x' } })).toEqual({
      field: `auth.headers.${name}`,
      detail: expect.stringMatching(reason),
    });
  });

  it.each(['Authorization', 'X-Api-Key', 'Api-Key', 'X-Webhook-Token', 'X-SVCish', 'Contenttype'])(
    'accepts %s',
    (name) => {
      expect(check({ type: 'headers', headers: { [name]: 'x' } }).violations).toEqual([]);
    },
  );

  it('refuses a name repeated in another case, naming the repeat', () => {
    expect(
      onlyViolation({ type: 'headers', headers: { 'X-Api-Key': 'a', 'x-api-key': 'b' } }),
    ).toEqual({
      field: 'auth.headers.x-api-key',
      detail: expect.stringMatching(/^repeats X-Api-Key/),
    });
  });

  it.each([
    ['a space', 'X Api Key', 'auth.headers["X Api Key"]'],
    ['a colon', 'X-Api-Key:', 'auth.headers["X-Api-Key:"]'],
    ['a non-ASCII letter', 'X-Clé', 'auth.headers["X-Clé"]'],
    ['a CR LF', 'X-A\r\nHost', 'auth.headers["X-A\\r\\nHost"]'],
    ['nothing', '', 'auth.headers[""]'],
  ])('refuses a name with %s', (_, name, field) => {
    expect(onlyViolation({ type: 'headers', headers: { [name]: 'x' } })).toEqual({
      field,
      detail: expect.stringMatching(/is not a valid header name.*RFC 9110/),
    });
  });

  it('limits names to 64 characters', () => {
    const name = `X-${'a'.repeat(62)}`;
    expect(check({ type: 'headers', headers: { [name]: 'x' } }).violations).toEqual([]);
    expect(onlyViolation({ type: 'headers', headers: { [`${name}b`]: 'x' } }).detail).toMatch(
      /at most 64 characters/,
    );
  });

  it.each([
    ['CR LF', `Bearer ${SECRET}\r\nX-Injected: 1`, /no CR, LF/],
    ['LF', `Bearer ${SECRET}\n`, /no CR, LF/],
    ['NUL', `Bearer\0${SECRET}`, /no CR, LF, NUL/],
    ['a non-ASCII character', `Bearer ${SECRET}é`, /printable ASCII/],
    ['a leading space', ` Bearer ${SECRET}`, /not begin or end with a space or tab/],
    ['a trailing tab', `Bearer ${SECRET}\t`, /not begin or end with a space or tab/],
    ['nothing', '', /must not be empty/],
    ['4097 characters', `Bearer ${'s'.repeat(4090)}`, /at most 4096 characters/],
    ['a number', 42, /must be a string/],
    ['null', null, /must be a string/],
  ])('refuses a value with %s, without repeating it', (_, value, detail) => {
    const violation = onlyViolation({ type: 'headers', headers: { Authorization: value } });
    expect(violation).toEqual({
      field: 'auth.headers.Authorization',
      detail: expect.stringMatching(detail),
    });
    expect(violation.detail).not.toContain(SECRET);
  });

  it('accepts a value of exactly 4096 characters', () => {
    const value = `Bearer ${'s'.repeat(4089)}`;
    expect(value).toHaveLength(4096);
    expect(check({ type: 'headers', headers: { Authorization: value } }).violations).toEqual([]);
  });

  it('keeps a header named __proto__ as a header, not a prototype', () => {
    const raw: unknown = JSON.parse('{"type":"headers","headers":{"__proto__":"x"}}');
    const { auth } = check(raw);
    expect(auth?.type === 'headers' && Object.keys(auth.headers)).toEqual(['__proto__']);
    expect(auth?.type === 'headers' && Object.getPrototypeOf(auth.headers)).toBe(Object.prototype);
  });
});

describe('checkReceiverAuth: basic', () => {
  it('accepts a username and a password (any Unicode but controls)', () => {
    const raw = { type: 'basic', username: 'hec-user', password: `pässwörd ${SECRET}` };
    expect(check(raw)).toEqual({ auth: raw, violations: [] });
  });

  it('refuses a colon in the username (RFC 7617)', () => {
    expect(onlyViolation({ type: 'basic', username: 'a:b', password: 'c' })).toEqual({
      field: 'auth.username',
      detail: expect.stringMatching(/must not contain a colon.*RFC 7617/),
    });
  });

  it('requires both', () => {
    expect(fields({ type: 'basic' })).toEqual(['auth.username', 'auth.password']);
    expect(onlyViolation({ type: 'basic', username: 'a' })).toEqual({
      field: 'auth.password',
      detail: 'is required',
    });
  });

  it.each([
    ['empty', '', /must not be empty/],
    ['a NUL', `${SECRET}\0`, /control characters/],
    ['a newline', `${SECRET}\n`, /control characters/],
    ['a DEL', `${SECRET}\x7f`, /control characters/],
    ['a lone surrogate', `${SECRET}\ud800`, /invalid Unicode/],
    ['1025 characters', 'p'.repeat(1025), /at most 1024 characters/],
    ['a number', 1234, /must be a string/],
  ])('refuses a password that is %s, without repeating it', (_, password, detail) => {
    const violation = onlyViolation({ type: 'basic', username: 'u', password });
    expect(violation).toEqual({ field: 'auth.password', detail: expect.stringMatching(detail) });
    expect(violation.detail).not.toContain(SECRET);
  });

  it('limits the username to 256 characters and the password to 1024', () => {
    expect(
      check({ type: 'basic', username: 'u'.repeat(256), password: 'p'.repeat(1024) }).violations,
    ).toEqual([]);
    expect(fields({ type: 'basic', username: 'u'.repeat(257), password: 'p' })).toEqual([
      'auth.username',
    ]);
  });
});

describe('checkReceiverAuth: oauth2_client_credentials', () => {
  const oauth = {
    type: 'oauth2_client_credentials',
    token_url: 'https://login.example.com/oauth2/token',
    client_id: 'svc:webhooks',
    client_secret: SECRET,
  };

  it('accepts the required fields (a colon in the client id included), scope and audience optional', () => {
    expect(check(oauth)).toEqual({ auth: oauth, violations: [] });
    const full = { ...oauth, scope: 'events.write', audience: 'https://api.example.com' };
    expect(check(full)).toEqual({ auth: full, violations: [] });
  });

  it('reads a null scope or audience as absent', () => {
    const { auth } = check({ ...oauth, scope: null, audience: null });
    expect(auth).toEqual(oauth);
    expect(auth).not.toHaveProperty('scope');
    expect(auth).not.toHaveProperty('audience');
  });

  it('keeps the token URL in canonical form', () => {
    const { auth } = check({ ...oauth, token_url: 'HTTPS://Login.Example.com' });
    expect(auth).toEqual({ ...oauth, token_url: 'https://login.example.com/' });
  });

  it.each([
    ['http://login.example.com/token', /https/],
    ['ftp://login.example.com/token', /https/],
    ['login.example.com/token', /absolute URL/],
    ['https://user:pw@login.example.com/token', /user information/],
    ['https://login.example.com/token#x', /fragment/],
    ['https://10.0.0.1/token', /must not point to/],
    ['https://169.254.169.254/token', /must not point to/],
    ['https://[::1]/token', /must not point to/],
    ['https://localhost/token', /must not point to localhost/],
    ['https://login.example.com/a/../token', /canonical form/],
    [`https://login.example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['', /must not be empty/],
  ])('refuses the token URL %s', (tokenUrl, detail) => {
    expect(onlyViolation({ ...oauth, token_url: tokenUrl })).toEqual({
      field: 'auth.token_url',
      detail: expect.stringMatching(detail),
    });
  });

  it('admits a private token URL when the allow-list covers it', () => {
    const loopback = new PrivateNetworkAllowList(['127.0.0.0/8']);
    const raw = { ...oauth, token_url: 'https://127.0.0.1:9443/token' };
    expect(checkReceiverAuth(raw, now, loopback)).toEqual({ auth: raw, violations: [] });
    expect(fields(raw)).toEqual(['auth.token_url']);
  });

  it('requires the token URL, client id and client secret', () => {
    expect(fields({ type: 'oauth2_client_credentials' })).toEqual([
      'auth.token_url',
      'auth.client_id',
      'auth.client_secret',
    ]);
  });

  it('checks the optional fields as text', () => {
    expect(fields({ ...oauth, scope: '', audience: 7 })).toEqual(['auth.scope', 'auth.audience']);
    expect(fields({ ...oauth, scope: 's'.repeat(257) })).toEqual(['auth.scope']);
  });

  it('never repeats the client secret', () => {
    const violation = onlyViolation({ ...oauth, client_secret: `${SECRET}\r\n` });
    expect(violation.field).toBe('auth.client_secret');
    expect(violation.detail).not.toContain(SECRET);
    expect(fields({ ...oauth, client_secret: 's'.repeat(1025) })).toEqual(['auth.client_secret']);
  });
});

describe('checkReceiverAuth: mtls', () => {
  const clientPem = tls('client.pem');
  const clientKey = tls('client-key.pem');

  it('accepts a valid certificate and its key, as given', () => {
    const raw = { type: 'mtls', certificate: clientPem, private_key: clientKey };
    expect(check(raw)).toEqual({ auth: raw, violations: [] });
  });

  it('refuses an expired certificate', () => {
    expect(
      onlyViolation({
        type: 'mtls',
        certificate: tls('client-expired.pem'),
        private_key: tls('client-expired-key.pem'),
      }),
    ).toEqual({ field: 'auth.certificate', detail: 'expired on 2021-01-01T00:00:00.000Z' });
  });

  it('refuses a key that does not match', () => {
    expect(
      onlyViolation({ type: 'mtls', certificate: clientPem, private_key: tls('other-key.pem') }),
    ).toEqual({
      field: 'auth.private_key',
      detail: expect.stringMatching(/does not match auth.certificate/),
    });
  });

  it('refuses garbage and a key in the certificate field', () => {
    expect(onlyViolation({ type: 'mtls', certificate: 'garbage', private_key: clientKey })).toEqual(
      {
        field: 'auth.certificate',
        detail: expect.stringMatching(/^is not a PEM certificate/),
      },
    );
    expect(onlyViolation({ type: 'mtls', certificate: clientKey, private_key: clientKey })).toEqual(
      {
        field: 'auth.certificate',
        detail: expect.stringMatching(/must not contain a private key/),
      },
    );
  });

  it('requires both, as PEM text of at most 64 KiB each', () => {
    expect(fields({ type: 'mtls' })).toEqual(['auth.certificate', 'auth.private_key']);
    const padded = `${clientPem}${'\n'.repeat(64 * 1024 - clientPem.length + 1)}`;
    expect(
      onlyViolation({ type: 'mtls', certificate: padded, private_key: clientKey }).detail,
    ).toMatch(/at most 65536 characters/);
    expect(
      onlyViolation({ type: 'mtls', certificate: clientPem, private_key: `${clientKey}\0` }),
    ).toEqual({ field: 'auth.private_key', detail: expect.stringMatching(/must be PEM text/) });
  });
});
