import { endpointStatusAfter } from './endpoint-status';

describe('endpointStatusAfter', () => {
  it.each([
    ['active', 'abandoned', 'degraded'],
    ['degraded', 'abandoned', 'degraded'],
    ['degraded', 'succeeded', 'active'],
    ['active', 'succeeded', 'active'],
    ['active', 'retrying', 'active'],
    ['degraded', 'retrying', 'degraded'],
  ] as const)('%s endpoint, delivery %s: %s', (current, conclusion, next) => {
    expect(endpointStatusAfter(current, conclusion)).toBe(next);
  });
});
