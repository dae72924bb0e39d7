/**
 * The service's published signing keys (ADR 0044), fetched from its JWKS URL
 * (`<api>/.well-known/webhook-signing-keys.json`) and cached. It never rejects: a receiver must
 * keep answering while the JWKS is unreachable, and with no usable key an Ed25519 signature simply
 * does not verify (the receiver fails closed; the sender retries later).
 */
import type { JsonWebKey } from 'node:crypto';

/** The part of the WHATWG fetch this uses, so that tests can pass a fake. */
export type JwksFetch = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string> },
) => Promise<{
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}>;

export interface JwksKeySourceOptions {
  /** Default: the global fetch. */
  fetch?: JwksFetch;
  /** How long keys stay fresh when the answer has no Cache-Control max-age. Default 5 minutes. */
  maxAgeMs?: number;
  /** A fetch slower than this counts as failed. Default 5 s (the sender waits 10 s for an answer). */
  timeoutMs?: number;
  /** The clock, in milliseconds (tests pass a fake one). */
  now?: () => number;
}

export interface JwksKeySource {
  readonly url: string;
  /** The keys, fetched first when none are cached or they are stale. Never rejects. */
  keys(): Promise<readonly JsonWebKey[]>;
  /**
   * Called when a signature verified under no cached key: the service may have rotated to a key
   * published after the cache was filled. Refetches unless a fetch was made in the last 30 s (so
   * forged signatures cannot make the receiver hammer the JWKS), and resolves to whether the key
   * set changed. Never rejects.
   */
  refreshForUnknownKey(): Promise<boolean>;
}

const DEFAULT_MAX_AGE_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 5_000;
/** The least time between two fetches, whatever happens: after a failure, or for a rotation. */
export const JWKS_MIN_REFETCH_INTERVAL_MS = 30_000;

export function jwksKeySource(url: string, options: JwksKeySourceOptions = {}): JwksKeySource {
  const fetchJwks: JwksFetch = options.fetch ?? ((jwksUrl, init) => fetch(jwksUrl, init));
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;

  let cached: readonly JsonWebKey[] = [];
  let freshUntil = -Infinity;
  let lastAttemptAt = -Infinity;
  let inFlight: Promise<boolean> | undefined;

  /** Resolves to whether the key set changed. */
  const refetch = (): Promise<boolean> => {
    inFlight ??= (async () => {
      lastAttemptAt = now();
      const fetched = await fetchKeySet(fetchJwks, url, timeoutMs);
      if (fetched === undefined) {
        // Keep the keys we had; try again no sooner than the minimum interval.
        freshUntil = lastAttemptAt + JWKS_MIN_REFETCH_INTERVAL_MS;
        return false;
      }
      const changed = kidsOf(fetched.keys) !== kidsOf(cached);
      cached = fetched.keys;
      freshUntil = lastAttemptAt + (fetched.maxAgeMs ?? maxAgeMs);
      return changed;
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    url,
    keys: async () => {
      if (now() >= freshUntil) {
        await refetch();
      }
      return cached;
    },
    refreshForUnknownKey: async () => {
      if (inFlight !== undefined) {
        return inFlight;
      }
      if (now() - lastAttemptAt < JWKS_MIN_REFETCH_INTERVAL_MS) {
        return false;
      }
      return refetch();
    },
  };
}

interface FetchedKeySet {
  keys: JsonWebKey[];
  /** From Cache-Control max-age, when the answer has one. */
  maxAgeMs?: number;
}

/** The key set, or undefined on any failure: network, timeout, status, or a body not a JWKS. */
async function fetchKeySet(
  fetchJwks: JwksFetch,
  url: string,
  timeoutMs: number,
): Promise<FetchedKeySet | undefined> {
  try {
    const response = await fetchJwks(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      return undefined;
    }
    const body = (await response.json()) as { keys?: unknown } | null;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.keys)) {
      return undefined;
    }
    const keys = body.keys.filter(
      (key): key is JsonWebKey => typeof key === 'object' && key !== null,
    );
    const maxAgeMs = maxAgeOf(response.headers.get('cache-control'));
    return maxAgeMs === undefined ? { keys } : { keys, maxAgeMs };
  } catch {
    return undefined;
  }
}

function maxAgeOf(cacheControl: string | null): number | undefined {
  const match = /(?:^|[,\s])max-age=(\d{1,9})(?:$|[,\s])/i.exec(cacheControl ?? '');
  return match ? Number(match[1]) * 1000 : undefined;
}

const kidsOf = (keys: readonly JsonWebKey[]): string =>
  keys
    .map((key) => `${String(key.kid)}:${String(key.x)}`)
    .sort()
    .join(' ');
