import { Tokens } from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BROWSER_COOKIE_OPTIONS, CSRF_COOKIE } from './cookies';

/**
 * CSRF protection of the sign-in and consent forms: a secret in an HttpOnly cookie, a token
 * derived from it in each form (@fastify/csrf), and, when the browser sends one, an Origin that
 * must be the authorization server's own.
 */
export class CsrfProtection {
  /** A form older than an hour is refused; the user reloads it. */
  private readonly tokens = new Tokens({ validity: 3600_000 });

  constructor(private readonly issuerOrigin: string) {}

  /** A token for a form; sets the secret cookie when the browser has none. */
  tokenFor(request: FastifyRequest, reply: FastifyReply): string {
    let secret = request.cookies[CSRF_COOKIE];
    // A damaged secret is replaced, or every form from this browser would fail for good.
    if (!secret || secret.length < 18) {
      secret = this.tokens.secretSync();
      void reply.setCookie(CSRF_COOKIE, secret, BROWSER_COOKIE_OPTIONS);
    }
    return this.tokens.create(secret);
  }

  accepts(request: FastifyRequest, token: unknown): boolean {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== this.issuerOrigin) {
      return false;
    }
    const secret = request.cookies[CSRF_COOKIE];
    return (
      typeof secret === 'string' && typeof token === 'string' && this.tokens.verify(secret, token)
    );
  }
}
