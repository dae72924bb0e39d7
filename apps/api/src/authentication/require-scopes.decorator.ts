import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Scope } from '@svc/contracts';
import type { Principal } from '@svc/identity';

export const REQUIRED_SCOPES = 'svc:required-scopes';

/** The scopes a route needs; every route is either public or declares its scopes. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

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
