import type { Agent } from 'undici';

/** The certificate an mTLS endpoint's attempts present (ADR 0048). */
export interface ClientCertificate {
  /** The endpoint's `id@version`: a changed certificate is a new version, so a new pool. */
  poolKey: string;
  /** PEM: the certificate, optionally followed by its intermediates. */
  certificate: string;
  /** PEM, unencrypted. */
  privateKey: string;
}

/** The certificate or its key could not make a TLS context: the attempt fails as TLS. */
export class ClientCertificateError extends Error {
  override readonly name = 'ClientCertificateError';
  readonly code = 'ERR_TLS_CLIENT_CERTIFICATE';
  constructor(cause: unknown) {
    super('the client certificate or its private key cannot be used', { cause });
  }
}

/** How many mTLS endpoint versions keep a connection pool at once, per engine. */
export const DEFAULT_MAX_CLIENT_CERTIFICATE_POOLS = 256;

/**
 * A connection pool per mTLS endpoint version (ADR 0048), each with its one TLS context made once
 * (a context per connection would parse the trust store every time). Least recently used first
 * out past the cap: an evicted pool finishes its requests and closes (a later attempt makes it
 * again). A certificate that cannot make a context is remembered as such, not retried per attempt.
 */
export class ClientCertificatePools {
  private readonly pools = new Map<string, Agent | ClientCertificateError>();

  constructor(
    /** Makes the pool of a certificate; throws when the certificate or key is unusable. */
    private readonly make: (certificate: ClientCertificate) => Agent,
    private readonly maxPools = DEFAULT_MAX_CLIENT_CERTIFICATE_POOLS,
  ) {}

  get size(): number {
    return this.pools.size;
  }

  /** The pool of this certificate; throws ClientCertificateError when it cannot have one. */
  agentFor(certificate: ClientCertificate): Agent {
    const key = certificate.poolKey;
    let pool = this.pools.get(key);
    if (pool) {
      // Most recently used last: Map keeps insertion order.
      this.pools.delete(key);
    } else {
      this.closeEarlierVersions(key);
      try {
        pool = this.make(certificate);
      } catch (error) {
        pool = new ClientCertificateError(error);
      }
    }
    this.pools.set(key, pool);
    this.evictPastCap();
    if (pool instanceof ClientCertificateError) {
      throw pool;
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => closeQuietly(pool)));
  }

  /**
   * A new version of an endpoint replaces the pools of its earlier ones at once (ADR 0048): a
   * replaced certificate must not go on being presented, nor hold connections until the cap.
   */
  private closeEarlierVersions(poolKey: string): void {
    const endpoint = endpointOf(poolKey);
    for (const [key, pool] of this.pools) {
      if (endpointOf(key) === endpoint) {
        this.pools.delete(key);
        void closeQuietly(pool);
      }
    }
  }

  private evictPastCap(): void {
    for (const [key, pool] of this.pools) {
      if (this.pools.size <= this.maxPools) {
        return;
      }
      this.pools.delete(key);
      void closeQuietly(pool);
    }
  }
}

/** `wh_…@7` → `wh_…`. */
function endpointOf(poolKey: string): string {
  const at = poolKey.lastIndexOf('@');
  return at < 0 ? poolKey : poolKey.slice(0, at);
}

/** Graceful: requests in flight finish first. */
async function closeQuietly(pool: Agent | ClientCertificateError): Promise<void> {
  if (!(pool instanceof ClientCertificateError)) {
    await pool.close().catch(() => undefined);
  }
}
