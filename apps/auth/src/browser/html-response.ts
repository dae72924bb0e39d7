import type { FastifyReply } from 'fastify';

/**
 * Pages of the authorization server: never cached, never framed (clickjacking of the consent
 * page), no scripts, styles only from this server's own stylesheet (no inline style), and no
 * Referer carrying the request's state to other sites (same-origin, not no-referrer: under
 * no-referrer a browser sends `Origin: null` on the forms' POSTs). No form-action either: the
 * consent form's answer redirects to the client, which browsers check against form-action.
 */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .send(html);
}

/** A redirect after a form or to the client; no-store so the code never sits in a cache. */
export function sendRedirect(
  reply: FastifyReply,
  status: 302 | 303,
  location: string,
): FastifyReply {
  return reply
    .code(status)
    .header('location', location)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .send();
}
