import { Inject, Injectable } from '@nestjs/common';
import { context as otelContext } from '@opentelemetry/api';
import { APP_CONFIG, ApiConfig } from '@svc/config';
import { derivedId, isId, newId, retentionKeyColumn } from '@svc/contracts';
import {
  decideTestScheduled,
  DeliveryAttemptRecord,
  DeliveryEvent,
  DeliveryRecord,
  projectDeliveryEvents,
  storePayloads,
  TEST_EVENT_TYPE,
  testEventEnvelope,
} from '@svc/deliveries';
import { appendToStreams } from '@svc/event-store';
import { PROBLEM_TYPES, ProblemException, problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import { traceCarrierOf } from '@svc/observability';
import { WebhookEndpointRecord } from '@svc/webhook-endpoints';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { visibleTo } from './webhook-endpoints.service';
import { CommandContext, commandMetadata } from '../audit/command-context';
import { recordRequestedAction, REQUESTED_ACTION_TYPES } from '../audit/requested-actions';

/**
 * How long past the delivery timeout the answer waits for the attempt's record: the engine's
 * claim (an interval at most, usually at once: it is woken), the connection, the record's commit.
 */
export const TEST_WAIT_MARGIN_MS = 5_000;
/** How often the wait looks for the attempt: a primary-key read of one delivery row. */
const TEST_POLL_INTERVAL_MS = 100;

export type TestOutcome =
  | { sent: true; attempt: DeliveryAttemptRecord }
  /** Not attempted within the wait: the delivery is made when an engine takes it. */
  | { sent: false; deliveryId: string; eventId: string };

/**
 * `POST /v1/webhooks/{id}/test` (ADR 0029). The API sends nothing itself (only the delivery
 * engine may reach receivers, through its SSRF-safe client): in one transaction it stores a
 * `webhook.test` event for the tenant and starts its delivery to that endpoint, due at once,
 * then wakes the engines and waits for the attempt's record, so that the answer is the attempt.
 * One test in flight per endpoint; a test is sent whatever the endpoint's status or environment.
 */
@Injectable()
export class WebhookTestService {
  private readonly waitMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: EndpointChangeNotifier,
    @Inject(APP_CONFIG) config: ApiConfig,
  ) {
    this.waitMs = config.delivery.timeoutMs + TEST_WAIT_MARGIN_MS;
  }

  async send(context: CommandContext, endpointId: string): Promise<TestOutcome> {
    if (!isId('wh', endpointId)) {
      throw notFound(endpointId);
    }
    const tenantId = context.principal.tenantId;
    const now = new Date();
    const eventId = newId('evt');
    // Named like every delivery (ADR 0023): its partition is that of its event's time, now.
    const deliveryId = derivedId('del', now, [tenantId, eventId, endpointId]);
    await this.dataSource.transaction(async (manager) => {
      // The endpoint's row lock makes two test requests for it take turns, so only one passes.
      const endpoint = await manager.getRepository(WebhookEndpointRecord).findOne({
        where: { id: endpointId, ...visibleTo(context.principal) },
        lock: { mode: 'pessimistic_write' },
      });
      if (!endpoint) {
        throw notFound(endpointId);
      }
      await this.refuseIfTestInFlight(manager, endpoint, now);
      const body = JSON.stringify(testEventEnvelope({ eventId, tenantId, endpointId, at: now }));
      await storePayloads(manager, [
        {
          eventId,
          tenantId,
          type: TEST_EVENT_TYPE,
          body,
          // The attempt's span joins this request's trace.
          traceContext: traceCarrierOf(otelContext.active()),
          retentionKey: now,
        },
      ]);
      const scheduled = decideTestScheduled(
        { deliveryId, eventId, endpointId, tenantId },
        null,
        now,
      );
      const appended = await appendToStreams<DeliveryEvent>(manager, [
        {
          streamId: deliveryId,
          expectedVersion: 0,
          events: scheduled.map((event) => ({ ...event, metadata: commandMetadata(context) })),
        },
      ]);
      await projectDeliveryEvents(manager, new Map(), appended);
      await recordRequestedAction(manager, context, {
        type: REQUESTED_ACTION_TYPES.testRequested,
        data: { endpoint_id: endpointId, delivery_id: deliveryId, event_id: eventId },
      });
    });
    // The engines' change notice: each claims what is due at once instead of at its next turn.
    await this.notifier.announce(tenantId, endpointId);
    const attempt = await this.recordedAttempt(tenantId, endpointId, deliveryId);
    return attempt ? { sent: true, attempt } : { sent: false, deliveryId, eventId };
  }

  /**
   * One test at a time per endpoint: a test delivery still pending that began within the wait is
   * in flight. One pending longer (no engine took it) no longer holds the next test back.
   */
  private async refuseIfTestInFlight(
    manager: EntityManager,
    endpoint: WebhookEndpointRecord,
    now: Date,
  ): Promise<void> {
    const since = new Date(now.getTime() - this.waitMs);
    const [inFlight]: { since: Date }[] = await manager.query(
      `SELECT retention_key AS since FROM deliveries
        WHERE endpoint_id = $1 AND tenant_id = $2 AND retention_key > $3
          AND event_type = $4 AND status = 'pending'
        ORDER BY retention_key DESC LIMIT 1`,
      [endpoint.id, endpoint.tenantId, since.toISOString(), TEST_EVENT_TYPE],
    );
    if (inFlight) {
      const seconds = Math.max(
        1,
        Math.ceil((inFlight.since.getTime() + this.waitMs - now.getTime()) / 1000),
      );
      throw new ProblemException(
        {
          type: PROBLEM_TYPES.tooManyRequests,
          title: 'Too many requests',
          status: 429,
          detail: `A test event to ${endpoint.id} is still in flight; send the next one once its attempt is recorded.`,
        },
        { 'retry-after': String(seconds) },
      );
    }
  }

  /**
   * The test delivery's attempt once recorded, or null when it was not within the wait. A
   * delivery cancelled before any attempt lost its endpoint (deleted meanwhile): a 404. Every
   * read names the delivery's partition (its retention key, ADR 0023).
   */
  private async recordedAttempt(
    tenantId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<DeliveryAttemptRecord | null> {
    const key = retentionKeyColumn(deliveryId);
    const deadline = Date.now() + this.waitMs;
    while (Date.now() < deadline) {
      const delivery = await this.dataSource
        .createQueryBuilder(DeliveryRecord, 'delivery')
        .where('delivery.id = :deliveryId AND delivery.tenant_id = :tenantId', {
          deliveryId,
          tenantId,
        })
        .andWhere('delivery.retention_key = :key', { key })
        .getOne();
      if (delivery && delivery.attempts > 0) {
        // The endpoint's attempts newest first (its index): this delivery's is among the first.
        return this.dataSource
          .createQueryBuilder(DeliveryAttemptRecord, 'attempt')
          .where('attempt.endpoint_id = :endpointId AND attempt.delivery_id = :deliveryId', {
            endpointId,
            deliveryId,
          })
          .andWhere('attempt.tenant_id = :tenantId AND attempt.retention_key = :key', {
            tenantId,
            key,
          })
          .orderBy('attempt.position', 'DESC')
          .getOne();
      }
      if (delivery?.status === 'cancelled') {
        throw notFound(endpointId);
      }
      await sleep(TEST_POLL_INTERVAL_MS);
    }
    return null;
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
