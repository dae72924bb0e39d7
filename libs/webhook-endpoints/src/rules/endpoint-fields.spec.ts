import {
  checkEndpointFields,
  checkFilter,
  checkOrdering,
  checkRateLimit,
  checkSecret,
  checkSignatureSchemes,
  checkSubscriptions,
} from './endpoint-fields';
import { PrivateNetworkAllowList } from './endpoint-url';

describe('checkSubscriptions', () => {
  it('accepts known types and family wildcards', () => {
    expect(checkSubscriptions(['alert.created', 'incident.*', 'compliance.*'])).toEqual([]);
  });

  it('refuses an empty list', () => {
    expect(checkSubscriptions([])).toEqual([
      { field: 'events', detail: expect.stringMatching(/at least one/) },
    ]);
  });

  it('names every unknown type', () => {
    const [violation] = checkSubscriptions(['alert.created', 'alert.exploded', '*', 'alerts.*']);
    expect(violation.field).toBe('events');
    expect(violation.detail).toMatch(/unknown event types: alert\.exploded, \*, alerts\.\*/);
  });

  it('refuses repeats', () => {
    expect(checkSubscriptions(['alert.*', 'alert.*'])[0].detail).toMatch(
      /repeated event types: alert\.\*/,
    );
  });
});

describe('checkSecret', () => {
  it('accepts 16 to 256 printable ASCII characters, spaces included', () => {
    expect(checkSecret('a'.repeat(16))).toEqual([]);
    expect(checkSecret('~'.repeat(256))).toEqual([]);
    expect(checkSecret('correct horse battery')).toEqual([]);
  });

  it.each([
    ['a'.repeat(15), /16 to 256/],
    ['a'.repeat(257), /16 to 256/],
    ['a'.repeat(15) + '\n', /printable/],
    ['a'.repeat(16) + 'é', /printable/],
    ['a'.repeat(16) + '\u0000', /printable/],
  ])('refuses %j', (secret, reason) => {
    expect(checkSecret(secret)[0].detail).toMatch(reason);
  });
});

describe('checkRateLimit', () => {
  it('accepts whole numbers from 1 to 10000 deliveries per second', () => {
    expect(checkRateLimit(1)).toEqual([]);
    expect(checkRateLimit(5)).toEqual([]);
    expect(checkRateLimit(10_000)).toEqual([]);
  });

  it.each([
    [0, /1 to 10000/],
    [-1, /1 to 10000/],
    [10_001, /1 to 10000/],
    [1.5, /whole number/],
    [Number.NaN, /whole number/],
    [Number.POSITIVE_INFINITY, /whole number/],
  ])('refuses %p, naming the field', (perSecond, reason) => {
    const [violation] = checkRateLimit(perSecond);
    expect(violation.field).toBe('rate_limit_per_second');
    expect(violation.detail).toMatch(reason);
  });
});

describe('checkSignatureSchemes', () => {
  it.each([[['hmac-sha256']], [['ed25519']], [['ed25519', 'hmac-sha256']]])(
    'accepts %j',
    (schemes) => {
      expect(checkSignatureSchemes(schemes)).toEqual([]);
    },
  );

  it.each([
    [[], /at least one/],
    [['rsa'], /unknown signature schemes: rsa; known: hmac-sha256, ed25519/],
    [['HMAC-SHA256'], /unknown signature schemes: HMAC-SHA256/],
    [['ed25519', 'ed25519'], /repeated signature schemes: ed25519/],
    [[7], /unknown signature schemes: 7/],
  ])('refuses %j, naming the field', (schemes, detail) => {
    expect(checkSignatureSchemes(schemes)).toEqual([
      { field: 'signature_schemes', detail: expect.stringMatching(detail) },
    ]);
  });

  it('is checked by checkEndpointFields only when present', () => {
    const none = new PrivateNetworkAllowList([]);
    expect(checkEndpointFields({}, none)).toEqual([]);
    expect(checkEndpointFields({ signature_schemes: [] }, none)).toEqual([
      { field: 'signature_schemes', detail: expect.stringMatching(/at least one/) },
    ]);
  });
});

describe('checkOrdering', () => {
  it.each(['unordered', 'fifo'])('accepts %j', (ordering) => {
    expect(checkOrdering(ordering)).toEqual([]);
  });

  it.each([
    ['lifo', /unknown ordering: lifo; known: unordered, fifo/],
    ['FIFO', /unknown ordering: FIFO/],
    [' fifo', /unknown ordering: {2}fifo/],
    ['', /unknown ordering: ; known/],
  ])('refuses %j, naming the field', (ordering, detail) => {
    expect(checkOrdering(ordering)).toEqual([
      { field: 'ordering', detail: expect.stringMatching(detail) },
    ]);
  });

  it('is checked by checkEndpointFields only when present', () => {
    const none = new PrivateNetworkAllowList([]);
    expect(checkEndpointFields({}, none)).toEqual([]);
    expect(checkEndpointFields({ ordering: 'fifo' }, none)).toEqual([]);
    expect(checkEndpointFields({ ordering: 'random' }, none)).toEqual([
      { field: 'ordering', detail: expect.stringMatching(/unknown ordering: random/) },
    ]);
  });
});

describe('checkFilter (ADR 0046)', () => {
  it.each([
    {},
    { data: { severity: { $in: ['high', 'critical'] } } },
    { $or: [{ type: 'alert.created' }, { data: { score: { $gte: 7 } } }] },
  ])('accepts %j', (filter) => {
    expect(checkFilter(filter)).toEqual([]);
  });

  it.each([
    ['a list', ['high'], 'filter', /must be a JSON object/],
    ['a string', 'high', 'filter', /must be a JSON object/],
    [
      'an unknown operator',
      { data: { severity: { $regex: 'h' } } },
      'filter.data.severity.$regex',
      /unknown operator \$regex/,
    ],
    [
      'a list too long',
      { data: { id: { $in: Array.from({ length: 101 }, (_, i) => i) } } },
      'filter.data.id.$in',
      /100/,
    ],
  ])('refuses %s, naming its path in the filter', (_, filter, field, detail) => {
    expect(checkFilter(filter)).toEqual([{ field, detail: expect.stringMatching(detail) }]);
  });

  it('is checked by checkEndpointFields only when present and not null', () => {
    const none = new PrivateNetworkAllowList([]);
    expect(checkEndpointFields({ filter: null }, none)).toEqual([]);
    expect(checkEndpointFields({ filter: { type: 'alert.created' } }, none)).toEqual([]);
    expect(
      checkEndpointFields({ filter: { type: { $like: 'a' } }, ordering: 'lifo' }, none),
    ).toEqual([
      { field: 'ordering', detail: expect.any(String) },
      { field: 'filter.type.$like', detail: expect.stringMatching(/unknown operator \$like/) },
    ]);
  });
});

describe('checkEndpointFields', () => {
  it('checks only the fields present and reports every problem at once', () => {
    const none = new PrivateNetworkAllowList([]);
    expect(checkEndpointFields({}, none)).toEqual([]);
    const fields = checkEndpointFields(
      { url: 'http://x.example', events: ['nope'], secret: 'short' },
      none,
    ).map((violation) => violation.field);
    expect(fields).toEqual(['url', 'events', 'secret']);
  });

  it('takes a null rate limit as no limit, and checks any other', () => {
    const none = new PrivateNetworkAllowList([]);
    expect(checkEndpointFields({ rate_limit_per_second: null }, none)).toEqual([]);
    expect(checkEndpointFields({ rate_limit_per_second: 0 }, none)).toEqual([
      { field: 'rate_limit_per_second', detail: expect.stringMatching(/1 to 10000/) },
    ]);
  });
});
