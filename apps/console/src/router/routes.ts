/**
 * The console's pages and their paths under /console/ (the base Vite builds for). Pure: the
 * router component and the links both go through `pathOf` and `matchRoute`, so a path is written
 * in one place only.
 */
export const CONSOLE_BASE = '/console/';

export type Route =
  | { page: 'endpoints' }
  | { page: 'new-endpoint' }
  | { page: 'endpoint'; endpointId: string }
  | { page: 'undelivered' }
  | { page: 'event-search' }
  | { page: 'event'; eventId: string }
  | { page: 'event-types' }
  | { page: 'callback' }
  | { page: 'not-found'; path: string };

/** The path of a page, absolute and percent-encoded, ready for an href or pushState. */
export function pathOf(route: Exclude<Route, { page: 'not-found' }>): string {
  switch (route.page) {
    case 'endpoints':
      return CONSOLE_BASE;
    case 'new-endpoint':
      return `${CONSOLE_BASE}endpoints/new`;
    case 'endpoint':
      return `${CONSOLE_BASE}endpoints/${encodeURIComponent(route.endpointId)}`;
    case 'undelivered':
      return `${CONSOLE_BASE}undelivered`;
    case 'event-search':
      return `${CONSOLE_BASE}events`;
    case 'event':
      return `${CONSOLE_BASE}events/${encodeURIComponent(route.eventId)}`;
    case 'event-types':
      return `${CONSOLE_BASE}event-types`;
    case 'callback':
      return `${CONSOLE_BASE}callback`;
  }
}

/** Decodes one path segment; a malformed escape is no page rather than an exception. */
function segment(value: string): string | null {
  try {
    const decoded = decodeURIComponent(value);
    return decoded.length > 0 && !decoded.includes('/') ? decoded : null;
  } catch {
    return null;
  }
}

/** The page a location's pathname shows. `/console` without its slash is the home page too. */
export function matchRoute(pathname: string): Route {
  const notFound: Route = { page: 'not-found', path: pathname };
  if (pathname === '/console') {
    return { page: 'endpoints' };
  }
  if (!pathname.startsWith(CONSOLE_BASE)) {
    return notFound;
  }
  const parts = pathname.slice(CONSOLE_BASE.length).replace(/\/$/, '').split('/');
  const [first, second, ...rest] = parts;
  if (rest.length > 0) {
    return notFound;
  }
  if (second === undefined) {
    const single: Record<string, Route> = {
      '': { page: 'endpoints' },
      endpoints: { page: 'endpoints' },
      undelivered: { page: 'undelivered' },
      events: { page: 'event-search' },
      'event-types': { page: 'event-types' },
      callback: { page: 'callback' },
    };
    return Object.hasOwn(single, first) ? single[first] : notFound;
  }
  const id = segment(second);
  if (first === 'endpoints' && second === 'new') {
    return { page: 'new-endpoint' };
  }
  if (first === 'endpoints' && id) {
    return { page: 'endpoint', endpointId: id };
  }
  if (first === 'events' && id) {
    return { page: 'event', eventId: id };
  }
  return notFound;
}
