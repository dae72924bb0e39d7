import { generateApiKey } from '@svc/identity';
import { findMisplacedCredential } from './misplaced-credentials';

const key = generateApiKey('live');

describe('findMisplacedCredential', () => {
  it('finds credential-named query parameters, whatever their value', () => {
    expect(findMisplacedCredential({ api_key: 'x' }, undefined)).toBe('query');
    expect(findMisplacedCredential({ access_token: 'x' }, undefined)).toBe('query');
    expect(findMisplacedCredential({ Token: 'x' }, undefined)).toBe('query');
  });

  it('finds a key-shaped value under any query name, including repeated parameters', () => {
    expect(findMisplacedCredential({ q: key }, undefined)).toBe('query');
    expect(findMisplacedCredential({ q: ['a', key] }, undefined)).toBe('query');
    // Portal session and link tokens (ADR 0042) as well.
    expect(findMisplacedCredential({ q: `svc_ps_${'a'.repeat(43)}` }, undefined)).toBe('query');
    expect(findMisplacedCredential({ q: `svc_pl_${'a'.repeat(43)}` }, undefined)).toBe('query');
  });

  it('finds credential fields and key-shaped values anywhere in a body', () => {
    expect(findMisplacedCredential({}, { api_key: 'anything' })).toBe('body');
    expect(findMisplacedCredential({}, { url: 'https://x', secret: key })).toBe('body');
    expect(findMisplacedCredential({}, { nested: [{ deep: `Bearer ${key}` }] })).toBe('body');
    expect(
      findMisplacedCredential({}, { nested: { refresh: 'svc_rt_abcdefghijklmnop1234' } }),
    ).toBe('body');
  });

  it('leaves ordinary requests alone', () => {
    expect(findMisplacedCredential({ limit: '10', cursor: 'abc' }, undefined)).toBeNull();
    expect(
      findMisplacedCredential(
        {},
        {
          url: 'https://hooks.example.com/in',
          events: ['alert.*'],
          secret: 'a-long-enough-secret',
        },
      ),
    ).toBeNull();
    expect(findMisplacedCredential(undefined, 'plain string')).toBeNull();
  });

  it('only treats a credential name as one at the top level of a body', () => {
    expect(findMisplacedCredential({}, { data: { token: 'opaque' } })).toBeNull();
  });
});
