import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Scope } from '@svc/contracts';
import type { Principal } from '@svc/identity';

export const REQUIRED_SCOPES = 'svc:required-scopes';

/** The scopes a route needs; every route is either public or declares its scopes. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

export const READ_ONLY_SESSION_ALLOWED = 'svc:read-only-session-allowed';

/**
 * A route a read-only portal session may call whatever its method: only ending the session
 * itself, which changes nothing of the tenant's.
 */
export const AllowReadOnlySession = () => SetMetadata(READ_ONLY_SESSION_ALLOWED, true);

export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The authenticated caller of the current request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) {
    throw new Error('CurrentPrincipal used on a route the authentication guard did not cover');
  }
  return principal;
});
