import { isUniqueViolation, preparedQuery } from '@svc/event-store';
import { DataSource } from 'typeorm';
import type { InboundPayload } from './inbound-payload';

/** What numbering a new event's deliveries found (DeliveryNumbers.claimForNewEvent). */
export type NewEventClaim =
  /** No body of the event was stored: it is now, and each endpoint has its number. */
  | { kind: 'claimed'; numbers: Map<string, number> }
  /** A body was stored already: decideIngest says what this copy is; nothing was written. */
  | { kind: 'stored'; storedBody: string };

/**
 * The heart of numbering, shared by both statements: the counters of the endpoints `endpoints`
 * (an array parameter) that pass `which` are moved on, in endpoint-id order so that two
 * statements sharing endpoints cannot deadlock, and each new number is claimed for the event.
 * A counter row is made at an endpoint's first delivery.
 */
const COUNT_AND_CLAIM = (
  q: { tenant: string; event: string; retentionKey: string; endpoints: string },
  which: string,
) => `
  counted AS (
    INSERT INTO endpoint_sequences AS counter (endpoint_id, last)
    SELECT endpoint_id, 1 FROM unnest(${q.endpoints}::text[]) AS endpoint_id
     WHERE ${which} ORDER BY endpoint_id
        ON CONFLICT (endpoint_id) DO UPDATE SET last = counter.last + 1
    RETURNING endpoint_id, last
  ), claimed AS (
    INSERT INTO delivery_numbers (tenant_id, event_id, endpoint_id, sequence, retention_key)
    SELECT ${q.tenant}, ${q.event}, endpoint_id, last, ${q.retentionKey}::timestamptz FROM counted
    RETURNING endpoint_id, sequence
  )`;

/**
 * An ordered (FIFO) endpoint's delivery takes its place in the endpoint's queue with its number,
 * in the statement that claims the number: not due (`infinity`) until its deferral is recorded,
 * so that a delivery numbered later but recorded sooner never overtakes it (ADR 0045). The
 * deferral's projection makes it due.
 */
const PLACE_IN_ORDERED_QUEUES = (tenant: string, endpoints: string, deliveries: string) => `
  placed AS (
    INSERT INTO delivery_schedule (delivery_id, tenant_id, endpoint_id, due_at, ordered, sequence)
    SELECT queued.delivery_id, ${tenant}, claimed.endpoint_id, 'infinity', true, claimed.sequence
      FROM unnest(${endpoints}::text[], ${deliveries}::text[]) AS queued(endpoint_id, delivery_id)
      JOIN claimed ON claimed.endpoint_id = queued.endpoint_id
        ON CONFLICT (delivery_id) DO NOTHING
  )`;

/** A delivery of the event to an endpoint that takes its deliveries one at a time. */
export interface OrderedDelivery {
  endpointId: string;
  deliveryId: string;
}

/** A resumed event's numbers, and which of its deliveries have a place in an ordered queue. */
export interface ResumedClaims {
  numbers: Map<string, number>;
  /**
   * Endpoints whose delivery of the event was placed in their FIFO queue when numbered (and not
   * yet recorded): it stays ordered, whatever the endpoint's ordering is now.
   */
  queued: Set<string>;
}

interface ClaimRow {
  stored_body: string | null;
  queued?: boolean;
  endpoint_id: string | null;
  /** bigint: pg answers it as a string. */
  sequence: string | null;
}

/**
 * A new event: its body is stored and each endpoint's counter moved on, in one statement and one
 * commit, only when no body of the event is stored (and some endpoint subscribes: otherwise the
 * statement only reads). The body's row is the event's lock: a copy in another engine that
 * inserts it at the same time waits for this statement's commit and then inserts nothing, so it
 * never moves a counter (ADR 0045).
 */
const CLAIM_NEW_EVENT = `
  WITH stored AS (
    SELECT body FROM inbound_events WHERE tenant_id = $1 AND event_id = $2
     ORDER BY retention_key LIMIT 1
  ), body AS (
    INSERT INTO inbound_events (event_id, tenant_id, type, body, trace_context, retention_key)
    SELECT $2, $1, $3, $4, $5::jsonb, $6::timestamptz
     WHERE NOT EXISTS (SELECT 1 FROM stored) AND cardinality($7::text[]) > 0
        ON CONFLICT (tenant_id, event_id, retention_key) DO NOTHING
    RETURNING 1
  ), ${COUNT_AND_CLAIM(
    { tenant: '$1', event: '$2', retentionKey: '$6', endpoints: '$7' },
    'EXISTS (SELECT 1 FROM body)',
  )}, ${PLACE_IN_ORDERED_QUEUES('$1', '$8', '$9')}
  SELECT body AS stored_body, NULL AS endpoint_id, NULL AS sequence FROM stored
  UNION ALL
  SELECT NULL, endpoint_id, sequence FROM claimed`;

/**
 * A copy handed out again (the engine stopped half-way through it): the numbers its endpoints
 * claimed stand; endpoints without one get the next of their counter. Two such copies at once
 * both insert a claim for one endpoint: the second fails on the key and rolls back whole, its
 * counter move with it, and is run again.
 */
const CLAIM_RESUMED_EVENT = `
  WITH existing AS (
    SELECT endpoint_id, sequence FROM delivery_numbers
     WHERE tenant_id = $1 AND event_id = $2 AND retention_key = $3::timestamptz
  ), ${COUNT_AND_CLAIM(
    { tenant: '$1', event: '$2', retentionKey: '$3', endpoints: '$4' },
    'endpoint_id NOT IN (SELECT endpoint_id FROM existing)',
  )}, ${PLACE_IN_ORDERED_QUEUES('$1', '$5', '$6')}
  SELECT endpoint_id, sequence,
         EXISTS (SELECT 1 FROM delivery_schedule AS place
                  WHERE place.ordered AND place.endpoint_id = existing.endpoint_id
                    AND place.sequence = existing.sequence) AS queued
    FROM existing
  UNION ALL
  SELECT endpoint_id, sequence, endpoint_id = ANY($5::text[]) FROM claimed`;

/**
 * Several new events numbered in one statement and one commit (ADR 0050): the events, in the
 * order given (`ord`), as CLAIM_NEW_EVENT numbers one. Bodies are inserted in (tenant, event)
 * order and counters moved in endpoint-id order, each once by the number of the run's events it
 * receives, so that two such statements, or one and CLAIM_NEW_EVENT, cannot deadlock; within an
 * endpoint the events take their numbers in the run's order. An event whose body is stored
 * numbers nothing and answers the body; one whose body another copy inserted after this
 * statement's snapshot numbers nothing and answers nothing (the caller claims it again alone).
 */
const CLAIM_NEW_EVENTS = `
  WITH items AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
      WITH ORDINALITY AS item(tenant_id, event_id, type, body, trace_context, retention_key, ord)
  ), targets AS (
    SELECT * FROM unnest($7::bigint[], $8::text[]) AS target(ord, endpoint_id)
  ), stored AS (
    SELECT items.ord, found.body FROM items CROSS JOIN LATERAL (
      SELECT body FROM inbound_events AS inbound
       WHERE inbound.tenant_id = items.tenant_id AND inbound.event_id = items.event_id
       ORDER BY retention_key LIMIT 1
    ) AS found
  ), body AS (
    INSERT INTO inbound_events (event_id, tenant_id, type, body, trace_context, retention_key)
    SELECT event_id, tenant_id, type, body, trace_context::jsonb, retention_key FROM items
     WHERE NOT EXISTS (SELECT 1 FROM stored WHERE stored.ord = items.ord)
       AND EXISTS (SELECT 1 FROM targets WHERE targets.ord = items.ord)
     ORDER BY tenant_id, event_id
        ON CONFLICT (tenant_id, event_id, retention_key) DO NOTHING
    RETURNING tenant_id, event_id
  ), numbering AS (
    SELECT targets.ord, targets.endpoint_id,
           row_number() OVER (PARTITION BY targets.endpoint_id ORDER BY targets.ord) AS place,
           count(*) OVER (PARTITION BY targets.endpoint_id) AS received
      FROM targets JOIN items USING (ord) JOIN body USING (tenant_id, event_id)
  ), counted AS (
    INSERT INTO endpoint_sequences AS counter (endpoint_id, last)
    SELECT endpoint_id, count(*) FROM numbering GROUP BY endpoint_id ORDER BY endpoint_id
        ON CONFLICT (endpoint_id) DO UPDATE SET last = counter.last + excluded.last
    RETURNING endpoint_id, last
  ), claimed AS (
    INSERT INTO delivery_numbers (tenant_id, event_id, endpoint_id, sequence, retention_key)
    SELECT items.tenant_id, items.event_id, numbering.endpoint_id,
           counted.last - numbering.received + numbering.place, items.retention_key
      FROM numbering JOIN counted USING (endpoint_id) JOIN items USING (ord)
    RETURNING tenant_id, event_id, endpoint_id, sequence
  ), placed AS (
    INSERT INTO delivery_schedule (delivery_id, tenant_id, endpoint_id, due_at, ordered, sequence)
    SELECT queued.delivery_id, claimed.tenant_id, claimed.endpoint_id, 'infinity', true, claimed.sequence
      FROM unnest($9::bigint[], $10::text[], $11::text[]) AS queued(ord, endpoint_id, delivery_id)
      JOIN items USING (ord)
      JOIN claimed ON claimed.tenant_id = items.tenant_id AND claimed.event_id = items.event_id
                  AND claimed.endpoint_id = queued.endpoint_id
        ON CONFLICT (delivery_id) DO NOTHING
  )
  SELECT stored.ord, stored.body AS stored_body, NULL AS endpoint_id, NULL AS sequence FROM stored
  UNION ALL
  SELECT items.ord, NULL, claimed.endpoint_id, claimed.sequence
    FROM claimed JOIN items ON items.tenant_id = claimed.tenant_id AND items.event_id = claimed.event_id`;

/** One new event of a run: what `claimForNewEvent` takes. */
export interface NewEventRequest {
  payload: InboundPayload;
  endpointIds: readonly string[];
  ordered: readonly OrderedDelivery[];
}

interface RunRow extends ClaimRow {
  /** bigint: pg answers it as a string; 1-based, the request's place in the run. */
  ord: string;
}

/** How often a claim that lost a race is run again: once is enough unless copies keep coming. */
const MAX_TRIES = 5;

/**
 * Each endpoint's deliveries numbered 1, 2, 3…, gap-free and never reused (ADR 0045): a number
 * is claimed per (tenant, event, endpoint) before the delivery's first attempt, durably, and every
 * later copy of the event finds it.
 */
export class DeliveryNumbers {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores the event's body and numbers its deliveries to `endpointIds` if no body of it is
   * stored; otherwise answers the stored body and writes nothing. With no endpoints, nothing is
   * written either way.
   */
  async claimForNewEvent(
    payload: InboundPayload,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[] = [],
  ): Promise<NewEventClaim> {
    const endpoints = [...new Set(endpointIds)];
    for (let tries = 1; ; tries += 1) {
      const rows = await preparedQuery<ClaimRow>(this.dataSource, CLAIM_NEW_EVENT, [
        payload.tenantId,
        payload.eventId,
        payload.type,
        payload.body,
        payload.traceContext ? JSON.stringify(payload.traceContext) : null,
        payload.retentionKey.toISOString(),
        endpoints,
        ordered.map((delivery) => delivery.endpointId),
        ordered.map((delivery) => delivery.deliveryId),
      ]);
      const stored = rows.find((row) => row.stored_body !== null);
      if (stored) {
        return { kind: 'stored', storedBody: stored.stored_body! };
      }
      const numbers = numbersOf(rows);
      // Nothing stored, nothing claimed: another copy stored the body after this statement's
      // snapshot was taken. Run again, to read it.
      if (numbers.size > 0 || endpoints.length === 0 || tries >= MAX_TRIES) {
        if (numbers.size !== endpoints.length) {
          throw new Error(
            `event ${payload.eventId} of ${payload.tenantId}: numbering raced ${tries} times`,
          );
        }
        return { kind: 'claimed', numbers };
      }
    }
  }

  /**
   * Several new events, of one tenant or more, each as `claimForNewEvent` would, in one statement
   * and one commit (ADR 0050). Answers one claim per request, in order, or null for a request
   * that raced another copy of its event (nothing stored when the statement began, nothing
   * claimed): `claimForNewEvent` alone settles those. No two requests may name one event.
   */
  async claimForNewEvents(requests: readonly NewEventRequest[]): Promise<(NewEventClaim | null)[]> {
    const targets: { ord: number; endpointId: string }[] = [];
    const queued: { ord: number; endpointId: string; deliveryId: string }[] = [];
    const endpointsOf = requests.map((request, index) => {
      const endpoints = [...new Set(request.endpointIds)];
      endpoints.forEach((endpointId) => targets.push({ ord: index + 1, endpointId }));
      request.ordered.forEach((delivery) => queued.push({ ord: index + 1, ...delivery }));
      return endpoints;
    });
    const payloads = requests.map((request) => request.payload);
    const rows = await preparedQuery<RunRow>(this.dataSource, CLAIM_NEW_EVENTS, [
      payloads.map((payload) => payload.tenantId),
      payloads.map((payload) => payload.eventId),
      payloads.map((payload) => payload.type),
      payloads.map((payload) => payload.body),
      payloads.map((payload) =>
        payload.traceContext ? JSON.stringify(payload.traceContext) : null,
      ),
      payloads.map((payload) => payload.retentionKey.toISOString()),
      targets.map((target) => target.ord),
      targets.map((target) => target.endpointId),
      queued.map((delivery) => delivery.ord),
      queued.map((delivery) => delivery.endpointId),
      queued.map((delivery) => delivery.deliveryId),
    ]);
    const rowsOf = requests.map((): RunRow[] => []);
    for (const row of rows) {
      rowsOf[Number(row.ord) - 1].push(row);
    }
    return rowsOf.map((ofRequest, index): NewEventClaim | null => {
      const stored = ofRequest.find((row) => row.stored_body !== null);
      if (stored) {
        return { kind: 'stored', storedBody: stored.stored_body! };
      }
      const numbers = numbersOf(ofRequest);
      return numbers.size === endpointsOf[index].length ? { kind: 'claimed', numbers } : null;
    });
  }

  /**
   * The numbers of a stored event's deliveries: those claimed before, for any endpoint, and new
   * ones for the endpoints of `endpointIds` that had none (the `ordered` ones placed in their
   * queues).
   */
  async claimForResumedEvent(
    payload: Pick<InboundPayload, 'tenantId' | 'eventId' | 'retentionKey'>,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[] = [],
  ): Promise<ResumedClaims> {
    const endpoints = [...new Set(endpointIds)];
    for (let tries = 1; ; tries += 1) {
      try {
        const rows = await preparedQuery<ClaimRow>(this.dataSource, CLAIM_RESUMED_EVENT, [
          payload.tenantId,
          payload.eventId,
          payload.retentionKey.toISOString(),
          endpoints,
          ordered.map((delivery) => delivery.endpointId),
          ordered.map((delivery) => delivery.deliveryId),
        ]);
        return {
          numbers: numbersOf(rows),
          queued: new Set(rows.filter((row) => row.queued).map((row) => row.endpoint_id!)),
        };
      } catch (error) {
        if (tries >= MAX_TRIES || !isUniqueViolation(error, 'delivery_numbers_pkey')) {
          throw error;
        }
      }
    }
  }
}

function numbersOf(rows: readonly ClaimRow[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const row of rows) {
    if (row.endpoint_id !== null && row.sequence !== null) {
      numbers.set(row.endpoint_id, Number(row.sequence));
    }
  }
  return numbers;
}
