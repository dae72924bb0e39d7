import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The endpoints the console calls from its own origin with fetch (ADR 0042). */
export const CONSOLE_CORS_PATHS = ['/oauth/token', '/oauth/revoke'] as const;

/** How long a browser may reuse a preflight's answer (Chromium caps it at two hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The origin that may call the token and revocation endpoints across origins: the console's,
 * when it is not the issuer's own (then no CORS is needed and none is answered).
 */
export function consoleCorsOrigin(consoleUrl: string, issuer: string): string | null {
  const consoleOrigin = new URL(consoleUrl).origin;
  return consoleOrigin === new URL(issuer).origin ? null : consoleOrigin;
}

/**
 * The CORS headers for a request to one of the console's endpoints: only for exactly the
 * console's origin, and never with credentials (the console sends no cookie here; its tokens
 * are in the body). `Vary: Origin` always, so no cache hands one origin's answer to another.
 */
export function consoleCorsHeaders(
  allowedOrigin: string | null,
  requestOrigin: string | undefined,
  preflight: boolean,
): Record<string, string> {
  if (allowedOrigin === null || requestOrigin !== allowedOrigin) {
    return { vary: 'Origin' };
  }
  return {
    vary: 'Origin',
    'access-control-allow-origin': allowedOrigin,
    ...(preflight
      ? {
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
        }
      : {}),
  };
}

/**
 * Answers the console's preflights (OPTIONS, 204) and adds the CORS headers to the token and
 * revocation endpoints' answers, errors included, so the console can read an OAuth error. Other
 * routes, and other origins, get none.
 */
export function registerConsoleCors(fastify: FastifyInstance, allowedOrigin: string | null): void {
  const paths = new Set<string>(CONSOLE_CORS_PATHS);
  for (const path of CONSOLE_CORS_PATHS) {
    fastify.options(path, (request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(204)
        .headers(consoleCorsHeaders(allowedOrigin, request.headers.origin, true))
        .header('cache-control', 'no-store')
        .send(),
    );
  }
  fastify.addHook('onSend', async (request, reply) => {
    if (request.method !== 'OPTIONS' && paths.has(request.routeOptions.url ?? '')) {
      void reply.headers(consoleCorsHeaders(allowedOrigin, request.headers.origin, false));
    }
  });
}
