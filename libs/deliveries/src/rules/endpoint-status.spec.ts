import { endpointStatusAfter, statusesKeptBy } from './endpoint-status';

describe('endpointStatusAfter', () => {
  it.each([
    ['active', 'abandoned', 'degraded'],
    ['degraded', 'abandoned', 'degraded'],
    ['degraded', 'succeeded', 'active'],
    ['active', 'succeeded', 'active'],
    ['active', 'retrying', 'active'],
    ['degraded', 'retrying', 'degraded'],
    ['active', 'gone', 'disabled'],
    ['degraded', 'gone', 'disabled'],
    ['disabled', 'succeeded', 'disabled'],
    ['disabled', 'abandoned', 'disabled'],
    ['disabled', 'retrying', 'disabled'],
  ] as const)('%s endpoint, delivery %s: %s', (current, conclusion, next) => {
    expect(endpointStatusAfter(current, conclusion)).toBe(next);
  });
});

describe('statusesKeptBy', () => {
  it.each([
    ['succeeded', ['active', 'disabled']],
    ['abandoned', ['degraded', 'disabled']],
    ['gone', ['disabled']],
    ['retrying', ['active', 'degraded', 'disabled']],
  ] as const)('a delivery %s leaves %j as they are', (conclusion, kept) => {
    expect(statusesKeptBy(conclusion)).toEqual(kept);
  });
});
