import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { APP_CONFIG, AuthAppConfig } from '@svc/config';
import { CONSOLE_CLIENT, type Scope } from '@svc/contracts';
import {
  authorizationResponseUrl,
  AuthorizationRequest,
  checkAuthorizationRequest,
  GrantsService,
  grantScopes,
  OAuthClient,
  OAuthClientsService,
  RawParameters,
  scopesAllowedToClient,
  SignInSessions,
  User,
  UsersService,
} from '@svc/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthMetrics } from '../auth-metrics';
import { SESSION_COOKIE } from '../browser/cookies';
import { CsrfProtection } from '../browser/csrf-protection';
import { sendPage, sendRedirect } from '../browser/html-response';
import { consentPage } from '../pages/consent-page';
import { errorPage, expiredFormPage } from '../pages/error-page';
import { loginPage } from '../pages/login-page';
import {
  findNamedClient,
  pickAuthorizationParameters,
  toQueryString,
  toSingleValues,
} from './authorization-parameters';

type Checked = { client: OAuthClient; request: AuthorizationRequest; parameters: RawParameters };

/**
 * The authorization endpoint (spec 4.3, RFC 6749 4.1.1): checks the request, then asks the user
 * to sign in, then for consent; the consent form posts back here and the user returns to the
 * client with a code or an error, always with `iss` (RFC 9207) and the client's `state`.
 */
@ApiExcludeController()
@Controller('oauth/authorize')
export class AuthorizeController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AuthAppConfig,
    private readonly clients: OAuthClientsService,
    private readonly users: UsersService,
    private readonly sessions: SignInSessions,
    private readonly grants: GrantsService,
    private readonly csrf: CsrfProtection,
    private readonly metrics: AuthMetrics,
  ) {}

  @Get()
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const checked = await this.check(request.query as RawParameters, reply, 302);
    if (!checked) {
      return reply;
    }
    const user = await this.signedInUser(request);
    if (!user) {
      return this.askSignIn(request, reply, checked, 200);
    }
    return this.askConsent(request, reply, checked, user);
  }

  @Post()
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const form = (request.body ?? {}) as RawParameters;
    if (!this.csrf.accepts(request, form.csrf_token)) {
      return sendPage(reply, 403, expiredFormPage());
    }
    const checked = await this.check(form, reply, 303);
    if (!checked) {
      return reply;
    }
    const user = await this.signedInUser(request);
    if (!user) {
      return this.askSignIn(
        request,
        reply,
        checked,
        401,
        'Your sign-in has ended. Sign in again to continue.',
      );
    }
    const { request: authorization } = checked;
    const granted = grantableScopes(authorization, user);
    if (form.decision !== 'allow' || granted.length === 0) {
      this.metrics.consents.inc({ decision: 'denied' });
      return this.redirectToClient(reply, 303, authorization, {
        error: 'access_denied',
        error_description:
          form.decision === 'allow'
            ? 'the user may grant none of the requested scopes'
            : 'the user denied the request',
      });
    }
    this.metrics.consents.inc({ decision: 'allowed' });
    return this.issueCode(reply, 303, authorization, user, granted);
  }

  /** The checked request, or null once an error page or error redirect has been sent. */
  private async check(
    source: RawParameters,
    reply: FastifyReply,
    redirectStatus: 302 | 303,
  ): Promise<Checked | null> {
    const parameters = pickAuthorizationParameters(source);
    const client = await findNamedClient(this.clients, parameters);
    const check = checkAuthorizationRequest(
      parameters,
      client && { ...client, allowedScopes: scopesAllowedToClient(client.id) },
    );
    if (check.outcome === 'error_page') {
      sendPage(reply, 400, errorPage('This sign-in link is not valid', check.description));
      return null;
    }
    if (check.outcome === 'redirect_error') {
      sendRedirect(
        reply,
        redirectStatus,
        authorizationResponseUrl(check.redirectUri, this.config.auth.issuer, {
          error: check.error,
          error_description: check.description,
          state: check.state,
        }),
      );
      return null;
    }
    return { client: client!, request: check.request, parameters };
  }

  private askSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    { client, parameters }: Checked,
    status: number,
    error?: string,
  ): FastifyReply {
    return sendPage(
      reply,
      status,
      loginPage({
        clientName: client.name,
        authorizationRequest: toQueryString(parameters),
        csrfToken: this.csrf.tokenFor(request, reply),
        ...(error ? { error } : {}),
      }),
    );
  }

  private async askConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    { client, request: authorization, parameters }: Checked,
    user: User,
  ): Promise<FastifyReply> {
    const granted = grantableScopes(authorization, user);
    if (granted.length === 0) {
      this.metrics.consents.inc({ decision: 'denied' });
      return this.redirectToClient(reply, 302, authorization, {
        error: 'access_denied',
        error_description: 'the user may grant none of the requested scopes',
      });
    }
    // The console is our own product, its redirect URI our configuration: a user signing in to
    // it is not handing their account to a third party, so there is nothing to consent to
    // (ADR 0042). Every other client asks, every time.
    if (client.id === CONSOLE_CLIENT.id) {
      return this.issueCode(reply, 302, authorization, user, granted);
    }
    return sendPage(
      reply,
      200,
      consentPage({
        clientName: client.name,
        userEmail: user.email,
        granted,
        withheld: authorization.scopes.filter((scope) => !granted.includes(scope)),
        request: toSingleValues(parameters),
        csrfToken: this.csrf.tokenFor(request, reply),
      }),
    );
  }

  private async issueCode(
    reply: FastifyReply,
    status: 302 | 303,
    authorization: AuthorizationRequest,
    user: User,
    granted: Scope[],
  ): Promise<FastifyReply> {
    const { code } = await this.grants.authorize({
      tenantId: user.tenantId,
      userId: user.id,
      clientId: authorization.clientId,
      scopes: granted,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
    });
    return this.redirectToClient(reply, status, authorization, { code });
  }

  private redirectToClient(
    reply: FastifyReply,
    status: 302 | 303,
    authorization: AuthorizationRequest,
    parameters: Record<string, string>,
  ): FastifyReply {
    return sendRedirect(
      reply,
      status,
      authorizationResponseUrl(authorization.redirectUri, this.config.auth.issuer, {
        ...parameters,
        state: authorization.state,
      }),
    );
  }

  private async signedInUser(request: FastifyRequest): Promise<User | null> {
    const userId = await this.sessions.userOf(request.cookies[SESSION_COOKIE]);
    return userId ? this.users.findById(userId) : null;
  }
}

/** What a grant for this request and user would carry: requested and allowed (spec 5.1). */
const grantableScopes = (authorization: AuthorizationRequest, user: User) =>
  grantScopes(authorization.scopes.join(' '), user.allowedScopes).granted;
