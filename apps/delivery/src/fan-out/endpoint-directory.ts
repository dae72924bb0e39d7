import { Logger } from '@nestjs/common';
import { type EndpointOrdering, type SignatureScheme, subscriptionMatches } from '@svc/contracts';
import type { AttemptPolicy } from '@svc/deliveries';
import { SecretCipher } from '@svc/secrets';
import {
  type CompiledFilter,
  compileFilter,
  EndpointEnvironment,
  EndpointStatus,
  openReceiverAuth,
  type ReceiverAuth,
  receiverAuthCipherContext,
  retryDelayMs,
  WebhookEndpointRecord,
} from '@svc/webhook-endpoints';
import { DataSource } from 'typeorm';

/** An endpoint as the engine delivers to it. */
export interface DirectoryEndpoint {
  id: string;
  tenantId: string;
  url: string;
  events: readonly string[];
  /** The plaintext signing secret; null when it cannot be decrypted (a key is missing). */
  secret: string | null;
  /**
   * The secret a rotation replaced, signing beside `secret` until `expiresAt` (ADR 0026); null
   * when there is none or it cannot be decrypted.
   */
  previousSecret: { secret: string; expiresAt: Date } | null;
  /** `disabled` endpoints get no new deliveries and their due ones are cancelled (ADR 0027). */
  status: EndpointStatus;
  /** Deliveries per second across all engines (ADR 0028); null: no limit. */
  rateLimitPerSecond: number | null;
  /**
   * Which signatures a delivery carries (ADR 0044): `hmac-sha256` with the secrets above,
   * `ed25519` with the deployment's signing keys; never empty.
   */
  signatureSchemes: readonly SignatureScheme[];
  /** `fifo`: one delivery at a time, in sequence order (ADR 0045). */
  ordering: EndpointOrdering;
  /**
   * Which of its subscribed events it takes (ADR 0046), compiled when the directory loaded this
   * version of the endpoint; null: all of them. Test events ignore it (ADR 0029).
   */
  filter: CompiledFilter | null;
  /** Only the events of its environment reach it (ADR 0018, 0030). */
  environment: EndpointEnvironment;
  /**
   * The projection's version of this endpoint: what the engine keeps per endpoint (OAuth tokens,
   * client-certificate pools, ADR 0048) is kept per version, so that a change of `auth` is never
   * served by what the old one made.
   */
  version: number;
  /**
   * How the receiver wants to be authenticated beyond the signature (ADR 0048), its secrets
   * opened; null: it asks for nothing more. `unreadable`: the endpoint has `auth` but its secrets
   * cannot be decrypted with the configured keys (nothing is sent without them).
   */
  auth: ReceiverAuth | 'unreadable' | null;
  /** The endpoint's own retry schedule and attempts (ADR 0048); null: the deployment's. */
  attemptPolicy: AttemptPolicy | null;
  /** The endpoint's own attempt timeout (ADR 0048); null: the deployment's. */
  timeoutMs: number | null;
}

/** What a stored filter that does not compile becomes (see compiledFilterOf). */
const MATCHES_NOTHING: CompiledFilter = Object.freeze({
  matches: () => false,
  explain: () => Object.freeze({ matched: false, decidedBy: 'filter' }),
});

/** Whether the event passes the endpoint's payload filter; an endpoint without one takes all. */
export function filterAdmits(endpoint: DirectoryEndpoint, envelope: unknown): boolean {
  return endpoint.filter === null || endpoint.filter.matches(envelope);
}

/**
 * An endpoint's own retry schedule as the attempt policy (ADR 0048): one attempt more than there
 * are delays, so that every delay is used once and none repeats.
 */
export function attemptPolicyOf(retrySchedule: readonly string[]): AttemptPolicy {
  return {
    retryScheduleMs: retrySchedule.map(retryDelayMs),
    maxAttempts: retrySchedule.length + 1,
  };
}

/** The secrets that sign a delivery sent at `now`: the newest first, then any still overlapping. */
export function signingSecretsOf(endpoint: DirectoryEndpoint, now: Date): string[] {
  if (endpoint.secret === null) {
    return [];
  }
  const previous = endpoint.previousSecret;
  return previous && previous.expiresAt > now
    ? [endpoint.secret, previous.secret]
    : [endpoint.secret];
}

interface TenantEntry {
  loadedAt: number;
  endpoints: DirectoryEndpoint[];
}

/**
 * Which endpoints of a tenant receive an event. Tenants' endpoints are read from the projection
 * and kept for a while; the API's change notices (core NATS) drop a tenant's entry at once, so a
 * deleted or changed endpoint stops receiving within moments on every engine. A generation
 * number per tenant keeps a load that raced a notice from storing what the notice replaced.
 */
export class EndpointDirectory {
  private readonly logger = new Logger('EndpointDirectory');
  private readonly tenants = new Map<string, TenantEntry>();
  private readonly generations = new Map<string, number>();
  private readonly loading = new Map<string, Promise<DirectoryEndpoint[]>>();
  /** `id@version` of the endpoints whose stored filter did not compile, each logged once. */
  private readonly unreadableFilters = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
    /** `ttlMs`: how long a tenant's endpoints are trusted without a change notice. */
    private readonly options: { ttlMs: number; now?: () => number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * The endpoints an event's type and environment reach: the platform's events are live, so they
   * never reach a sandbox key's (`test`) endpoints (ADR 0018); an operational event reaches its
   * endpoint's (ADR 0030). Payload filters are the caller's to apply (`filterAdmits`): they need
   * the envelope, and the intake counts what they keep out.
   */
  async subscribers(
    tenantId: string,
    eventType: string,
    environment: EndpointEnvironment = 'live',
  ): Promise<DirectoryEndpoint[]> {
    const endpoints = await this.endpointsOf(tenantId);
    return endpoints.filter(
      (endpoint) =>
        endpoint.environment === environment &&
        endpoint.status !== 'disabled' &&
        endpoint.events.some((subscription) => subscriptionMatches(subscription, eventType)),
    );
  }

  async endpoint(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    return (
      (await this.endpointsOf(tenantId)).find((endpoint) => endpoint.id === endpointId) ?? null
    );
  }

  /**
   * One endpoint of the tenant whatever its environment and status, read afresh: a test event
   * goes to the endpoint it was asked for, sandbox or live, degraded or disabled (ADR 0029).
   */
  async endpointForTest(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    const row = await this.dataSource
      .getRepository(WebhookEndpointRecord)
      .findOneBy({ id: endpointId, tenantId });
    return row ? this.asDirectoryEndpoint(row) : null;
  }

  invalidate(tenantId: string): void {
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
    this.tenants.delete(tenantId);
    this.loading.delete(tenantId);
  }

  /** After a reconnect notices may have been missed: forget everything. */
  invalidateAll(): void {
    for (const tenantId of [...this.tenants.keys(), ...this.loading.keys()]) {
      this.invalidate(tenantId);
    }
  }

  private async endpointsOf(tenantId: string): Promise<DirectoryEndpoint[]> {
    const cached = this.tenants.get(tenantId);
    if (cached && this.now() - cached.loadedAt < this.options.ttlMs) {
      return cached.endpoints;
    }
    const inFlight = this.loading.get(tenantId);
    if (inFlight) {
      return inFlight;
    }
    const generation = this.generations.get(tenantId) ?? 0;
    const load = this.load(tenantId).then((endpoints) => {
      if ((this.generations.get(tenantId) ?? 0) === generation) {
        this.tenants.set(tenantId, { loadedAt: this.now(), endpoints });
        this.loading.delete(tenantId);
      }
      return endpoints;
    });
    this.loading.set(tenantId, load);
    load.catch(() => this.loading.delete(tenantId));
    return load;
  }

  private async load(tenantId: string): Promise<DirectoryEndpoint[]> {
    // Both environments: subscribers() picks the event's, and a retry finds its endpoint in either.
    const rows = await this.dataSource.getRepository(WebhookEndpointRecord).findBy({ tenantId });
    return rows.map((row) => this.asDirectoryEndpoint(row));
  }

  private asDirectoryEndpoint(row: WebhookEndpointRecord): DirectoryEndpoint {
    return {
      id: row.id,
      tenantId: row.tenantId,
      url: row.url,
      events: row.events,
      secret: this.decrypt(row, row.secretCiphertext),
      previousSecret: this.previousSecretOf(row),
      status: row.status,
      rateLimitPerSecond: row.rateLimitPerSecond,
      signatureSchemes: row.signatureSchemes,
      ordering: row.ordering,
      filter: this.compiledFilterOf(row),
      environment: row.environment,
      version: row.version,
      auth: this.openedAuth(row),
      attemptPolicy: row.retrySchedule ? attemptPolicyOf(row.retrySchedule) : null,
      timeoutMs: row.timeoutSeconds ? row.timeoutSeconds * 1000 : null,
    };
  }

  /**
   * Compiled once per load of the endpoint, never per event (ADR 0046). The API compiled the
   * filter before recording it, so one that does not compile now was written around the API or
   * predates a change of the language. It then matches nothing rather than everything: a receiver
   * that asked for a few events must not be flooded with all of them, and the metric of filtered
   * deliveries shows the silence. Logged once per endpoint version, not at every reload.
   */
  private compiledFilterOf(row: WebhookEndpointRecord): CompiledFilter | null {
    if (row.filter == null) {
      return null;
    }
    const compiled = compileFilter(row.filter);
    if (compiled.ok) {
      return compiled.filter;
    }
    const version = `${row.id}@${row.version}`;
    if (!this.unreadableFilters.has(version)) {
      this.unreadableFilters.add(version);
      const problems = compiled.problems.map(({ field, detail }) => `${field} ${detail}`);
      this.logger.error(
        `the stored filter of ${row.id} (version ${row.version}) does not compile (${problems.join('; ')}): it matches no event until the filter is replaced`,
      );
    }
    return MATCHES_NOTHING;
  }

  /** Opened once per load of the endpoint, like the signing secret (ADR 0048). */
  private openedAuth(row: WebhookEndpointRecord): DirectoryEndpoint['auth'] {
    if (row.auth == null) {
      return null;
    }
    const context = receiverAuthCipherContext(row.id);
    try {
      return openReceiverAuth(row.auth, (sealed) => this.cipher.decrypt(sealed, context));
    } catch (error) {
      this.logger.error(
        `cannot decrypt the receiver auth of ${row.id}: ${(error as Error).message}`,
      );
      return 'unreadable';
    }
  }

  private previousSecretOf(row: WebhookEndpointRecord): DirectoryEndpoint['previousSecret'] {
    if (!row.previousSecretCiphertext || !row.previousSecretExpiresAt) {
      return null;
    }
    if (row.previousSecretExpiresAt.getTime() <= this.now()) {
      return null;
    }
    const secret = this.decrypt(row, row.previousSecretCiphertext);
    return secret === null ? null : { secret, expiresAt: row.previousSecretExpiresAt };
  }

  private decrypt(row: WebhookEndpointRecord, ciphertext: string): string | null {
    try {
      return this.cipher.decrypt(ciphertext, row.id);
    } catch (error) {
      this.logger.error(`cannot decrypt the secret of ${row.id}: ${(error as Error).message}`);
      return null;
    }
  }
}
