import { consoleCorsHeaders, consoleCorsOrigin } from './console-cors';

describe("the console's CORS", () => {
  it("allows the console's origin when it is not the issuer's", () => {
    expect(consoleCorsOrigin('http://localhost:8080/console/', 'http://localhost:8081')).toBe(
      'http://localhost:8080',
    );
    expect(
      consoleCorsOrigin('https://app.example.com/console/', 'https://app.example.com/auth'),
    ).toBe(null);
  });

  it('answers a preflight of exactly that origin, without credentials', () => {
    expect(consoleCorsHeaders('http://localhost:8080', 'http://localhost:8080', true)).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'http://localhost:8080',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
    });
    expect(consoleCorsHeaders('http://localhost:8080', 'http://localhost:8080', false)).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'http://localhost:8080',
    });
  });

  it.each([
    ['another origin', 'http://localhost:8080', 'https://evil.example'],
    ['a look-alike', 'http://localhost:8080', 'http://localhost:8080.evil.example'],
    ['the null origin', 'http://localhost:8080', 'null'],
    ['no origin', 'http://localhost:8080', undefined],
    ['no console origin', null, 'http://localhost:8080'],
  ])('gives %s nothing but Vary', (_case, allowed, origin) => {
    expect(consoleCorsHeaders(allowed, origin, true)).toEqual({ vary: 'Origin' });
  });
});
