import { DEFAULT_GAP_WINDOW_MS } from '@svc/webhook-receiver';

/** The example receiver's configuration, from the environment. */
export interface ReceiverConfig {
  port: number;
  /** The endpoint's secret, for an endpoint signed with `hmac-sha256`. */
  secret?: string;
  /**
   * The service's published keys (`<api>/.well-known/webhook-signing-keys.json`), for an endpoint
   * signed with `ed25519` (ADR 0044). At least one of `secret` and `jwksUrl` is set.
   */
  jwksUrl?: string;
  /** The secret a rotation replaced, accepted beside `secret` until unset (ADR 0026). */
  previousSecret?: string;
  /** PEM file paths; without them the receiver serves plain HTTP (development only). */
  tls?: { certFile: string; keyFile: string };
  /**
   * How long an X-SVC-Sequence number may stay missing after a later one arrived before it is
   * logged as a gap: past the sender's retry window (ADR 0045).
   */
  gapWindowMs: number;
}

export const DEFAULT_RECEIVER_PORT = 9000;

export class ReceiverConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ReceiverConfigError';
  }
}

/** Reports every bad variable at once, so that one start-up shows all that needs fixing. */
export function readReceiverConfig(env: NodeJS.ProcessEnv): ReceiverConfig {
  const problems: string[] = [];

  let port = DEFAULT_RECEIVER_PORT;
  const rawPort = env.RECEIVER_PORT;
  if (rawPort !== undefined && rawPort !== '') {
    port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
    if (!(port >= 0 && port <= 65535)) {
      problems.push('RECEIVER_PORT: must be an integer from 0 to 65535');
    }
  }

  const secret = env.RECEIVER_SECRET || undefined;
  const jwksUrl = env.RECEIVER_JWKS_URL || undefined;
  if (secret === undefined && jwksUrl === undefined) {
    problems.push(
      'RECEIVER_SECRET or RECEIVER_JWKS_URL: give one or both (the secret given when the webhook ' +
        "endpoint was registered; the URL of the service's webhook-signing-keys.json)",
    );
  }
  if (jwksUrl !== undefined && !isHttpUrl(jwksUrl)) {
    problems.push('RECEIVER_JWKS_URL: must be an https:// (or http://) URL');
  }

  const previousSecret = env.RECEIVER_PREVIOUS_SECRET || undefined;
  if (previousSecret !== undefined && secret === undefined) {
    problems.push('RECEIVER_PREVIOUS_SECRET: needs RECEIVER_SECRET (the secret that replaced it)');
  }

  const certFile = env.RECEIVER_TLS_CERT || undefined;
  const keyFile = env.RECEIVER_TLS_KEY || undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    problems.push('RECEIVER_TLS_CERT and RECEIVER_TLS_KEY: give both (PEM file paths) or neither');
  }

  let gapWindowMs = DEFAULT_GAP_WINDOW_MS;
  const rawGapWindow = env.RECEIVER_GAP_WINDOW;
  if (rawGapWindow !== undefined && rawGapWindow !== '') {
    gapWindowMs = durationMsOf(rawGapWindow);
    if (!(gapWindowMs > 0)) {
      problems.push('RECEIVER_GAP_WINDOW: must be a duration such as 45m, 2h or 90s');
    }
  }

  if (problems.length > 0) {
    throw new ReceiverConfigError(problems);
  }
  return {
    port,
    gapWindowMs,
    ...(secret !== undefined && { secret }),
    ...(jwksUrl !== undefined && { jwksUrl }),
    ...(previousSecret !== undefined && { previousSecret }),
    ...(certFile !== undefined && keyFile !== undefined ? { tls: { certFile, keyFile } } : {}),
  };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `90s`, `45m`, `2h` in milliseconds; NaN for anything else. */
export function durationMsOf(raw: string): number {
  const match = /^(\d{1,9})(ms|s|m|h)$/.exec(raw);
  return match ? Number(match[1]) * UNIT_MS[match[2]] : NaN;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
