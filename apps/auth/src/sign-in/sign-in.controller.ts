import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ClientAddresses, OAuthClientsService, PasswordSignIn, SignInSessions } from '@svc/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthMetrics } from '../auth-metrics';
import { findNamedClient } from '../authorize/authorization-parameters';
import { BROWSER_COOKIE_OPTIONS, SESSION_COOKIE } from '../browser/cookies';
import { CsrfProtection } from '../browser/csrf-protection';
import { sendPage, sendRedirect } from '../browser/html-response';
import { expiredFormPage } from '../pages/error-page';
import { loginPage } from '../pages/login-page';

const WRONG_CREDENTIALS = 'The email or password is incorrect.';

/**
 * The sign-in form's target. A success starts a session and returns to the authorization
 * request; tries are counted per account and per client address before the password is
 * checked, and throttled (ADR 0014, 0017).
 */
@ApiExcludeController()
@Controller('oauth/login')
export class SignInController {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly signIns: PasswordSignIn,
    private readonly addresses: ClientAddresses,
    private readonly sessions: SignInSessions,
    private readonly csrf: CsrfProtection,
    private readonly metrics: AuthMetrics,
  ) {}

  @Post()
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!this.csrf.accepts(request, form.csrf_token)) {
      return sendPage(reply, 403, expiredFormPage());
    }
    const authorizationRequest =
      typeof form.authorization_request === 'string' ? form.authorization_request : '';
    const email = typeof form.email === 'string' ? form.email.trim() : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const client = await findNamedClient(
      this.clients,
      Object.fromEntries(new URLSearchParams(authorizationRequest)),
    );
    const again = (status: number, error: string) =>
      sendPage(
        reply,
        status,
        loginPage({
          clientName: client?.name ?? 'the application',
          authorizationRequest,
          csrfToken: this.csrf.tokenFor(request, reply),
          email,
          error,
        }),
      );

    if (email === '' || password === '') {
      return again(400, 'Enter your email and password.');
    }
    const result = await this.signIns.attempt({
      email,
      password,
      address: this.addresses.of(request.socket.remoteAddress, request.headers['x-forwarded-for']),
    });
    if (result.outcome === 'throttled') {
      this.metrics.signIns.inc({ outcome: 'throttled' });
      void reply.header('retry-after', String(result.retryAfterSeconds));
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      return again(
        429,
        result.limit === 'account'
          ? `Too many failed sign-ins for this account. Try again in ${minutes} minutes.`
          : `Too many failed sign-ins from your network. Try again in ${minutes} minutes.`,
      );
    }
    if (result.outcome === 'failed') {
      this.metrics.signIns.inc({ outcome: 'failed' });
      return again(401, WRONG_CREDENTIALS);
    }
    const { user } = result;
    const sessionId = await this.sessions.start(user.id);
    void reply.setCookie(SESSION_COOKIE, sessionId, BROWSER_COOKIE_OPTIONS);
    this.metrics.signIns.inc({ outcome: 'succeeded' });
    // Relative, so it stays on this server whatever the form said.
    return sendRedirect(
      reply,
      303,
      `authorize?${new URLSearchParams(authorizationRequest).toString()}`,
    );
  }
}
