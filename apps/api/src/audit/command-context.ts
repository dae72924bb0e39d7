import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Principal } from '@svc/identity';
import { ClientAddresses } from '@svc/oauth';
import type { FastifyRequest } from 'fastify';

/**
 * Who asked, and from where: what every event a request appends carries in its metadata, so
 * that the log can answer "who changed this endpoint, and when?" (ADR 0047).
 */
export interface CommandContext {
  principal: Principal;
  /** The request's id, which is its trace id in the logs. */
  requestId: string;
  /** The caller's address (behind API_TRUSTED_PROXIES: the rightmost untrusted hop); null unknown. */
  clientAddress: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set as each request arrives (registerClientAddresses). */
    clientAddress?: string;
  }
}

type RequestWithCaller = Pick<FastifyRequest, 'id' | 'clientAddress'>;

/**
 * Works out each request's client address once, as it arrives: X-Forwarded-For is believed only
 * from the proxies configured (the rule of the auth app's sign-in throttle).
 */
export function registerClientAddresses(
  app: NestFastifyApplication,
  trustedProxies: readonly string[],
): void {
  const addresses = new ClientAddresses(trustedProxies);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, _reply, done) => {
      request.clientAddress = addresses.of(
        request.socket.remoteAddress,
        request.headers['x-forwarded-for'],
      );
      done();
    });
}

/** The context of a command made by `principal` in `request`. */
export function commandContextOf(principal: Principal, request: RequestWithCaller): CommandContext {
  const address = request.clientAddress;
  return {
    principal,
    requestId: request.id,
    clientAddress: address === undefined || address === 'unknown' ? null : address,
  };
}

/**
 * The metadata of the events a command appends: the tenant and environment it acted in, the
 * actor (its credential's kind and id; an API key's hint, never the key; the user and OAuth
 * client of an access token), the request id and the client address.
 */
export function commandMetadata(context: CommandContext): Record<string, unknown> {
  const { principal } = context;
  return {
    tenant_id: principal.tenantId,
    environment: principal.sandbox ? 'test' : 'live',
    actor: {
      kind: principal.kind,
      id: principal.credentialId,
      ...(principal.credentialHint !== undefined && { key_hint: principal.credentialHint }),
      ...(principal.userId !== undefined && { user_id: principal.userId }),
      ...(principal.clientId !== undefined && { client_id: principal.clientId }),
    },
    request_id: context.requestId,
    client_address: context.clientAddress,
  };
}
