import type { DirectoryEndpoint } from '../../../apps/delivery/src/fan-out/endpoint-directory';

/** An endpoint as the engine's directory hands it out: active, live, HMAC, no auth or policy. */
export function directoryEndpoint(overrides: Partial<DirectoryEndpoint> = {}): DirectoryEndpoint {
  const id = overrides.id ?? 'wh_1';
  return {
    id,
    tenantId: 'ten_1',
    url: `https://${id}.example/in`,
    events: ['alert.*'],
    status: 'active',
    environment: 'live',
    secret: 'whsec_test',
    previousSecret: null,
    rateLimitPerSecond: null,
    signatureSchemes: ['hmac-sha256'],
    ordering: 'unordered',
    filter: null,
    version: 1,
    auth: null,
    attemptPolicy: null,
    timeoutMs: null,
    ...overrides,
  };
}
