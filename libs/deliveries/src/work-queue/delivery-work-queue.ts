import { StatementParameters } from '@svc/event-store';
import { DataSource, EntityManager, In } from 'typeorm';
import { DeliveryRecord, InboundEvent } from '../projection/delivery-projection-tables';
import { DeliveryNumbers, NewEventClaim, OrderedDelivery, ResumedClaims } from './delivery-numbers';
import type { InboundPayload } from './inbound-payload';
import { NumberingRuns, NumberingStatementObserver } from './numbering-runs';

/** A due delivery an engine has claimed for one lease, with its tenant's stored event. */
export interface ClaimedDelivery {
  delivery: DeliveryRecord;
  /** Undefined when no body of the delivery's tenant and event is stored (ADR 0016). */
  payload: InboundEvent | undefined;
}

const payloadKey = (tenantId: string, eventId: string) => `${tenantId} ${eventId}`;

/**
 * The delivery work queue as PostgreSQL holds it: the schedule of due attempts (claimed by
 * engines with FOR UPDATE SKIP LOCKED and a lease, never a transaction held across an HTTP call),
 * the stored event bodies, and which endpoints of an event already have a delivery. The one
 * owner of these tables' queries outside the projections, which keep the schedule in step with
 * the log (projection/delivery-schedule-projection.ts).
 */
export class DeliveryWorkQueue {
  private readonly numbers: DeliveryNumbers;
  private readonly numberingRuns: NumberingRuns;

  constructor(
    private readonly dataSource: DataSource,
    observeNumbering?: NumberingStatementObserver,
  ) {
    this.numbers = new DeliveryNumbers(dataSource);
    this.numberingRuns = new NumberingRuns(this.numbers, undefined, observeNumbering);
  }

  /**
   * Claims up to `limit` due deliveries, oldest due first, for `leaseMs`: no other engine takes
   * them until the lease lapses (a crashed engine's claims come back by themselves).
   */
  /**
   * `skipEndpoints`: endpoints the claiming engine has no free slot for. Their deliveries stay due
   * for any engine that has one, or for this one's next claim once a slot frees; claiming them now
   * would only put each off again, a round trip per delivery per claim (issue 35).
   */
  async claimDue(
    limit: number,
    leaseMs: number,
    skipEndpoints: readonly string[] = [],
  ): Promise<ClaimedDelivery[]> {
    // For UPDATE ... RETURNING, TypeORM's query() answers [rows, affected count].
    // Ordered deliveries are claimed only as their queue's head (claimOrderedHeads).
    const [claimed]: [{ delivery_id: string }[], number] = await this.dataSource.query(
      `UPDATE delivery_schedule AS s SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM (SELECT delivery_id FROM delivery_schedule
                WHERE NOT ordered AND due_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
                  AND endpoint_id <> ALL($3::text[])
                ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED) AS due
        WHERE s.delivery_id = due.delivery_id
        RETURNING s.delivery_id`,
      [limit, leaseMs, skipEndpoints],
    );
    return this.withPayloads(claimed.map((row) => row.delivery_id));
  }

  /**
   * Claims the heads of ordered (FIFO) endpoints' queues that are due and unclaimed, up to
   * `limit`, for `leaseMs` (of one endpoint only, given `endpointId`). A head is an endpoint's
   * scheduled delivery of the lowest number: while it is claimed, not yet due (a retry's wait) or
   * not yet recorded (its place taken at numbering), nothing after it is sent (ADR 0045). The heads
   * are found by a skip scan of delivery_schedule_ordered_idx, one probe per ordered endpoint,
   * whatever the length of the queues.
   */
  async claimOrderedHeads(
    limit: number,
    leaseMs: number,
    endpointId?: string,
  ): Promise<ClaimedDelivery[]> {
    const heads =
      endpointId === undefined
        ? `WITH RECURSIVE heads AS (
             (SELECT endpoint_id, delivery_id FROM delivery_schedule WHERE ordered
               ORDER BY endpoint_id, sequence LIMIT 1)
             UNION ALL
             SELECT next.endpoint_id, next.delivery_id FROM heads,
               LATERAL (SELECT endpoint_id, delivery_id FROM delivery_schedule
                         WHERE ordered AND endpoint_id > heads.endpoint_id
                         ORDER BY endpoint_id, sequence LIMIT 1) AS next
           )`
        : `WITH heads AS (
             SELECT endpoint_id, delivery_id FROM delivery_schedule
              WHERE ordered AND endpoint_id = $3 ORDER BY sequence LIMIT 1
           )`;
    const [claimed]: [{ delivery_id: string }[], number] = await this.dataSource.query(
      `${heads}
       UPDATE delivery_schedule AS s SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM (SELECT head.delivery_id FROM heads JOIN delivery_schedule AS head USING (delivery_id)
                WHERE head.due_at <= now() AND (head.claimed_until IS NULL OR head.claimed_until < now())
                ORDER BY head.due_at LIMIT $1 FOR UPDATE OF head SKIP LOCKED) AS due
        WHERE s.delivery_id = due.delivery_id
          AND (s.claimed_until IS NULL OR s.claimed_until < now())
        RETURNING s.delivery_id`,
      endpointId === undefined ? [limit, leaseMs] : [limit, leaseMs, endpointId],
    );
    return this.withPayloads(claimed.map((row) => row.delivery_id));
  }

  /** Claimed deliveries, read with their tenants' stored events. */
  private async withPayloads(ids: string[]): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) {
      return [];
    }
    const deliveries = await this.dataSource.getRepository(DeliveryRecord).findBy({ id: In(ids) });
    const payloads = await this.storedPayloads(deliveries);
    return deliveries.map((delivery) => ({
      delivery,
      payload: payloads.get(payloadKey(delivery.tenantId, delivery.eventId)),
    }));
  }

  /** A claimed delivery whose endpoint is busy: its claim is pushed back by `delayMs`. */
  async postpone(deliveryId: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE delivery_schedule SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE delivery_id = $1`,
      [deliveryId, delayMs],
    );
  }

  /** A claimed delivery that is no longer pending leaves the schedule. */
  async forget(deliveryId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM delivery_schedule WHERE delivery_id = $1', [
      deliveryId,
    ]);
  }

  /**
   * Scheduled attempts due now and not claimed by any engine: what the engines have not caught up
   * with. An ordered endpoint's queue waits by design and is not counted, nor are the deliveries
   * of `skipEndpoints`, which wait for their endpoint's slots, not for the engines (claimDue).
   */
  async dueBacklog(skipEndpoints: readonly string[] = []): Promise<number> {
    const [row]: { due: string }[] = await this.dataSource.query(
      `SELECT count(*) AS due FROM delivery_schedule
        WHERE NOT ordered AND due_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
          AND endpoint_id <> ALL($1::text[])`,
      [skipEndpoints],
    );
    return Number(row.due);
  }

  /** Deliveries in FIFO endpoints' queues, heads included (by the partial ordered index). */
  async orderedWaiting(): Promise<number> {
    const [row]: { waiting: string }[] = await this.dataSource.query(
      'SELECT count(*) AS waiting FROM delivery_schedule WHERE ordered',
    );
    return Number(row.waiting);
  }

  /**
   * DeliveryNumbers.claimForNewEvent: the body stored and each delivery numbered, or the stored
   * body. Queued before this returns, and numbered with the claims asked for while the one before
   * was under way (NumberingRuns, ADR 0050).
   */
  claimForNewEvent(
    payload: InboundPayload,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<NewEventClaim> {
    return this.numberingRuns.claimForNewEvent({ payload, endpointIds, ordered });
  }

  /** DeliveryNumbers.claimForResumedEvent: the numbers claimed before, and new ones. */
  claimForResumedEvent(
    payload: Pick<InboundPayload, 'tenantId' | 'eventId' | 'retentionKey'>,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<ResumedClaims> {
    return this.numbers.claimForResumedEvent(payload, endpointIds, ordered);
  }

  /** The endpoints that already have a delivery of a tenant's event. */
  async endpointsServed(tenantId: string, eventId: string): Promise<Set<string>> {
    const rows: { endpoint_id: string }[] = await this.dataSource.query(
      'SELECT endpoint_id FROM deliveries WHERE tenant_id = $1 AND event_id = $2',
      [tenantId, eventId],
    );
    return new Set(rows.map((row) => row.endpoint_id));
  }

  /** A payload is its tenant's: looked up by (tenant_id, event_id), never by the id alone. */
  private async storedPayloads(deliveries: DeliveryRecord[]): Promise<Map<string, InboundEvent>> {
    if (deliveries.length === 0) {
      return new Map();
    }
    const bodies = await this.dataSource
      .getRepository(InboundEvent)
      .findBy(deliveries.map((d) => ({ tenantId: d.tenantId, eventId: d.eventId })));
    return new Map(bodies.map((event) => [payloadKey(event.tenantId, event.eventId), event]));
  }
}

/**
 * Stores each event's body once per (tenant, event), in the transaction of the first record
 * that needs it; a body already stored stays as it was (the first one stands).
 */
export async function storePayloads(
  manager: EntityManager,
  payloads: readonly InboundPayload[],
): Promise<void> {
  const parameters = new StatementParameters();
  const insert = insertPayloadsSql(payloads, parameters);
  if (insert) {
    await manager.query(insert, parameters.values);
  }
}

/**
 * The INSERT of storePayloads, alone or as a CTE of a group commit (`gate`: a condition the
 * whole statement's writes wait on); null when there is no body to store.
 */
export function insertPayloadsSql(
  payloads: readonly InboundPayload[],
  parameters: StatementParameters,
  gate = 'true',
): string | null {
  const unique = new Map(payloads.map((p) => [payloadKey(p.tenantId, p.eventId), p]));
  if (unique.size === 0) {
    return null;
  }
  // In key order: two group commits storing the bodies of the same events in two orders would
  // each wait for the other's first row (deadlock_detected).
  const rows = [...unique.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, payload]) => payload);
  return `INSERT INTO inbound_events (event_id, tenant_id, type, body, trace_context, retention_key)
     SELECT * FROM unnest(${parameters.add(rows.map((r) => r.eventId))}::text[],
                          ${parameters.add(rows.map((r) => r.tenantId))}::text[],
                          ${parameters.add(rows.map((r) => r.type))}::text[],
                          ${parameters.add(rows.map((r) => r.body))}::text[],
                          ${parameters.add(rows.map((r) => (r.traceContext ? JSON.stringify(r.traceContext) : null)))}::jsonb[],
                          ${parameters.add(rows.map((r) => r.retentionKey.toISOString()))}::timestamptz[])
     WHERE ${gate}
     ON CONFLICT (tenant_id, event_id, retention_key) DO NOTHING`;
}
