import { endpointStatusAfter } from './endpoint-status';

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
