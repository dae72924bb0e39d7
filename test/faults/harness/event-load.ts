import type { NatsConnection } from '@nats-io/nats-core';
import { EventEnvelope, SubjectScheme } from '@svc/contracts';
import { EventPublisher, newEventEnvelope } from '@svc/event-publisher';
import { setTimeout as sleep } from 'node:timers/promises';
import { PUBLISHED_TYPES, subscribedEndpoints, TENANTS, TenantName } from './topology';

/** One event of the scenario's known set, as JetStream acknowledged it. */
export interface PublishedEvent {
  envelope: EventEnvelope;
  tenant: TenantName;
  /** Endpoint names its tenant's subscriptions make it due to. */
  endpoints: string[];
  /** Date.now() when JetStream acknowledged it. */
  publishedAt: number;
  /** Tries it took (more than one while NATS was away). */
  tries: number;
}

export interface PacedLoad {
  /** Events to publish (at most, with `until`), at `perSecond`. */
  count: number;
  perSecond: number;
  /** Stops publishing as soon as this says so (checked before each event). */
  until?: () => boolean;
  /** Called after each acknowledged publish, with how many are out so far. */
  onPublished?: (published: number) => Promise<void> | void;
}

/**
 * Publishes the scenario's events as the platform's services do (`EventPublisher`: validated,
 * `Nats-Msg-Id` = event id, resolved on JetStream's acknowledgement). A publish that fails (NATS
 * is being killed) is tried again with the same envelope until acknowledged, as a producer that
 * keeps its event would: the known set is every event JetStream acknowledged.
 */
export class EventLoad {
  readonly published: PublishedEvent[] = [];
  private readonly publisher: EventPublisher;
  private sequence = 0;

  constructor(
    nats: NatsConnection,
    subjectRoot: string,
    private readonly tenantIds: Record<TenantName, string>,
    private readonly giveUpAfterMs = 120_000,
  ) {
    this.publisher = new EventPublisher(nats, new SubjectScheme(subjectRoot));
  }

  /** The next event of the rotation over tenants and types. */
  private nextEvent(): { envelope: EventEnvelope; tenant: TenantName; endpoints: string[] } {
    const n = this.sequence;
    this.sequence += 1;
    const tenant = TENANTS[n % TENANTS.length];
    const type = PUBLISHED_TYPES[Math.floor(n / TENANTS.length) % PUBLISHED_TYPES.length];
    const envelope = newEventEnvelope(this.tenantIds[tenant], type, {
      id: `res_${n}`,
      severity: 'high',
      title: `fault suite event ${n}`,
    });
    return { envelope, tenant, endpoints: subscribedEndpoints(tenant, type) };
  }

  async publishOne(): Promise<PublishedEvent> {
    const { envelope, tenant, endpoints } = this.nextEvent();
    const giveUpAt = Date.now() + this.giveUpAfterMs;
    for (let tries = 1; ; tries += 1) {
      try {
        await this.publisher.publish(envelope);
        const event = { envelope, tenant, endpoints, publishedAt: Date.now(), tries };
        this.published.push(event);
        return event;
      } catch (error) {
        if (Date.now() > giveUpAt) {
          throw new Error(
            `event ${envelope.id} not acknowledged after ${tries} tries: ${(error as Error).message}`,
            { cause: error },
          );
        }
        await sleep(250);
      }
    }
  }

  /** `count` events, one every 1/perSecond s; a late one (NATS away) is followed at once. */
  async publishPaced(load: PacedLoad): Promise<void> {
    const started = performance.now();
    for (let i = 0; i < load.count && !load.until?.(); i += 1) {
      const due = started + (i * 1000) / load.perSecond;
      const wait = due - performance.now();
      if (wait > 0) {
        await sleep(wait);
      }
      await this.publishOne();
      await load.onPublished?.(i + 1);
    }
  }

  /** Every (event, endpoint) pair the known set is due to reach. */
  pairs(): { eventId: string; endpoint: string; publishedAt: number }[] {
    return this.published.flatMap((event) =>
      event.endpoints.map((endpoint) => ({
        eventId: event.envelope.id,
        endpoint,
        publishedAt: event.publishedAt,
      })),
    );
  }
}
