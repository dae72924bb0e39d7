import { matchRoute, pathOf, Route } from './routes';

describe('the console routes', () => {
  it.each<[string, Route]>([
    ['/console/', { page: 'endpoints' }],
    ['/console', { page: 'endpoints' }],
    ['/console/endpoints', { page: 'endpoints' }],
    ['/console/endpoints/new', { page: 'new-endpoint' }],
    ['/console/endpoints/wh_01J', { page: 'endpoint', endpointId: 'wh_01J' }],
    ['/console/endpoints/wh_01J/', { page: 'endpoint', endpointId: 'wh_01J' }],
    ['/console/undelivered', { page: 'undelivered' }],
    ['/console/events', { page: 'event-search' }],
    ['/console/events/evt%201', { page: 'event', eventId: 'evt 1' }],
    ['/console/event-types', { page: 'event-types' }],
    ['/console/callback', { page: 'callback' }],
  ])('matches %s', (path, route) => {
    expect(matchRoute(path)).toEqual(route);
  });

  it.each([
    '/',
    '/consoles/',
    '/console/nope',
    '/console/endpoints/a/b',
    '/console/events/%E0%A4%A',
    '/console/events/a%2Fb',
    '/console/constructor',
    '/console/__proto__',
  ])('shows no page for %s', (path) => {
    expect(matchRoute(path)).toEqual({ page: 'not-found', path });
  });

  it('writes every path it matches, ids encoded', () => {
    const routes: Exclude<Route, { page: 'not-found' }>[] = [
      { page: 'endpoints' },
      { page: 'new-endpoint' },
      { page: 'endpoint', endpointId: 'wh_1?x=#' },
      { page: 'undelivered' },
      { page: 'event-search' },
      { page: 'event', eventId: 'evt_ü' },
      { page: 'event-types' },
      { page: 'callback' },
    ];
    for (const route of routes) {
      expect(matchRoute(pathOf(route))).toEqual(route);
    }
    expect(pathOf({ page: 'endpoint', endpointId: 'a/b' })).toBe('/console/endpoints/a%2Fb');
  });
});
