import { Logger } from '@nestjs/common';
import { subscriptionMatches } from '@svc/contracts';
import { SecretCipher } from '@svc/secrets';
import { WebhookEndpointRecord } from '@svc/webhook-endpoints';
import { DataSource } from 'typeorm';

/** An endpoint as the engine delivers to it. */
export interface DirectoryEndpoint {
  id: string;
  tenantId: string;
  url: string;
  events: readonly string[];
  /** The plaintext signing secret; null when it cannot be decrypted (a key is missing). */
  secret: string | null;
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

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
    /** `ttlMs`: how long a tenant's endpoints are trusted without a change notice. */
    private readonly options: { ttlMs: number; now?: () => number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async subscribers(tenantId: string, eventType: string): Promise<DirectoryEndpoint[]> {
    const endpoints = await this.endpointsOf(tenantId);
    return endpoints.filter((endpoint) =>
      endpoint.events.some((subscription) => subscriptionMatches(subscription, eventType)),
    );
  }

  async endpoint(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    return (
      (await this.endpointsOf(tenantId)).find((endpoint) => endpoint.id === endpointId) ?? null
    );
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
    // Platform events are live: they never reach a sandbox key's (`test`) endpoints (ADR 0018).
    const rows = await this.dataSource
      .getRepository(WebhookEndpointRecord)
      .findBy({ tenantId, environment: 'live' });
    return rows.map((row) => ({
      id: row.id,
      tenantId: row.tenantId,
      url: row.url,
      events: row.events,
      secret: this.decrypt(row),
    }));
  }

  private decrypt(row: WebhookEndpointRecord): string | null {
    try {
      return this.cipher.decrypt(row.secretCiphertext, row.id);
    } catch (error) {
      this.logger.error(`cannot decrypt the secret of ${row.id}: ${(error as Error).message}`);
      return null;
    }
  }
}
