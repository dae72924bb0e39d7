import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from '@svc/http';
import { publicJwkOf } from '@svc/signing';
import { JWKS_MAX_AGE_SECONDS, SigningKeyStore } from '@svc/signing-keys';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { WebhookSigningKeySet } from './signing-keys.dto';

const CACHE_CONTROL = `public, max-age=${JWKS_MAX_AGE_SECONDS}`;

const CACHING_HEADERS = {
  'Cache-Control': { description: CACHE_CONTROL, schema: { type: 'string' } },
  ETag: {
    description: 'Of this key set; send it back as If-None-Match.',
    schema: { type: 'string' },
  },
};

/** Whether an If-None-Match header names this ETag (RFC 9110 13.1.2: weak comparison, or `*`). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (typeof ifNoneMatch !== 'string') {
    return false;
  }
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Key discovery (ADR 0044): the public keys that sign deliveries' `v1a` entries, as a JWKS. No
 * credential: a receiver verifies with this document alone. Cacheable for five minutes, which
 * is the margin a retired key stays published after it stops signing.
 */
@ApiTags('signing keys')
@PublicRoute()
@Controller('.well-known')
export class SigningKeysController {
  constructor(private readonly store: SigningKeyStore) {}

  @Get('webhook-signing-keys.json')
  @ApiOkResponse({
    type: WebhookSigningKeySet,
    description:
      'The Ed25519 public keys of the deployment (JWKS). No credential needed. A receiver verifies each `v1a,` entry of webhook-signature against each key ([Verifying an Ed25519 signature] in docs/api.md).',
    headers: CACHING_HEADERS,
  })
  @ApiResponse({
    status: 304,
    description: 'If-None-Match names the current ETag: the cached key set is still right.',
    headers: CACHING_HEADERS,
  })
  async keySet(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookSigningKeySet | undefined> {
    // The first key is made here if need be, so that receivers can fetch the set before the
    // first ed25519 delivery is sent (the engine makes it as well, under the same lock).
    await this.store.ensureCurrentKey();
    const keySet = {
      keys: (await this.store.publishedKeys()).map((key) => publicJwkOf(key.publicKey, key.kid)),
    };
    const body = JSON.stringify(keySet);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    void reply.header('cache-control', CACHE_CONTROL).header('etag', etag);
    if (matchesEtag(ifNoneMatch, etag)) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('content-type', 'application/json; charset=utf-8');
    return keySet;
  }
}
