import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  hashPassword,
  LoginThrottle,
  OAuthClientsService,
  passwordMatches,
  SignInSessions,
  UsersService,
} from '@svc/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
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
 * request; failures are counted per account and throttled (ADR 0014).
 */
@ApiExcludeController()
@Controller('oauth/login')
export class SignInController {
  /** Checked when no user has the email, so the answer takes as long either way. */
  private readonly absentUserHash = hashPassword(randomBytes(32).toString('base64'));

  constructor(
    private readonly clients: OAuthClientsService,
    private readonly users: UsersService,
    private readonly sessions: SignInSessions,
    private readonly throttle: LoginThrottle,
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
    const throttled = await this.throttle.check(email);
    if (!throttled.allowed) {
      this.metrics.signIns.inc({ outcome: 'throttled' });
      void reply.header('retry-after', String(throttled.retryAfterSeconds));
      return again(
        429,
        `Too many failed sign-ins for this account. Try again in ${Math.ceil(throttled.retryAfterSeconds / 60)} minutes.`,
      );
    }
    const user = await this.users.findByEmail(email);
    if (!user) {
      await passwordMatches(await this.absentUserHash, password);
    }
    if (!user || !(await passwordMatches(user.passwordHash, password))) {
      await this.throttle.fail(email);
      this.metrics.signIns.inc({ outcome: 'failed' });
      return again(401, WRONG_CREDENTIALS);
    }
    await this.throttle.clear(email);
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
