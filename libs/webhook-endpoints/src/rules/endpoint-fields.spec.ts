import { checkEndpointFields, checkSecret, checkSubscriptions } from './endpoint-fields';
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
});
