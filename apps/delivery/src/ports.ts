import type { MsgHdrs } from '@nats-io/nats-core';
import type { RejectionReason } from '@svc/contracts';
import type {
  DeliveryRecord,
  InboundEvent,
  InboundPayload,
  NewEventClaim,
  OrderedDelivery,
  ResumedClaims,
} from '@svc/deliveries';
import type { EndpointEnvironment } from '@svc/webhook-endpoints';
import type { DirectoryEndpoint } from './fan-out/endpoint-directory';
import type { DeliveryCommit, RecordReceipt } from './recording/delivery-recorder';

/**
 * The ports of the delivery engine: what its intake, dispatch and lanes need of the world,
 * declared here by the engine and implemented by adapters (PostgreSQL: the recorder, the work
 * queue, the endpoint directory, the lane registry; JetStream: adapters/jetstream). The medium
 * test tier (test/medium) puts in-memory fakes behind the same ports.
 */

/**
 * A message as the intake sees it: the one JetStream-shaped type it knows. JetStream's `JsMsg`
 * is one as it is, with no wrapper per message.
 */
export interface IntakeMessage {
  readonly subject: string;
  /** Its sequence number in the stream. */
  readonly seq: number;
  readonly data: Uint8Array;
  /** The publisher's headers: the trace context travels in them. */
  readonly headers?: MsgHdrs;
  /** When the stream stored it. */
  readonly time: Date;
  readonly info: {
    readonly stream: string;
    /** Messages behind this one that its consumer had not delivered when it was. */
    readonly pending: number;
    /** 1 the first time the consumer delivers it. */
    readonly deliveryCount: number;
    readonly redelivered: boolean;
  };
  ack(): void;
  /** Hands it back, to be delivered again after `delayMs` (at once without). */
  nak(delayMs?: number): void;
  /** Keeps it from being handed out again while it is still worked on. */
  working(): void;
}

/** One pull's messages, as they arrive; `stop` ends it early. */
export interface PulledBatch extends AsyncIterable<IntakeMessage> {
  stop(): void;
}

/** Where an intake pulls its messages from (a JetStream consumer). */
export interface MessageSource {
  /** Up to `max` messages, waiting up to `expiresMs` on the server when there are none. */
  fetch(max: number, expiresMs: number): Promise<PulledBatch>;
}

/** Where a message the engine cannot accept is parked (the dead-letter stream, and the log). */
export interface DeadLetters {
  /** Parks it, durably; the caller acknowledges it afterwards. */
  park(message: IntakeMessage, reason: RejectionReason, detail: string): Promise<void>;
}

/**
 * What the engine knows of the events it ingested before (the stored bodies, the numbers claimed
 * and the deliveries), and where a new event's deliveries are numbered before their first attempt
 * (ADR 0045).
 */
export interface IngestLedger {
  /**
   * Stores the body of an event no copy of which is stored and claims each endpoint's next
   * number for it, durably; or answers the stored body, writing nothing. Claims asked for one
   * after another are numbered in that order (queued before this returns), several at a time
   * when they pile up (ADR 0050).
   */
  claimForNewEvent(
    payload: InboundPayload,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<NewEventClaim>;
  /** A stored event's numbers: every one claimed before, and new ones for endpoints without. */
  claimForResumedEvent(
    payload: Pick<InboundPayload, 'tenantId' | 'eventId' | 'retentionKey'>,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<ResumedClaims>;
  /** The endpoints that already have a delivery of a tenant's event. */
  endpointsServed(tenantId: string, eventId: string): Promise<Set<string>>;
}

/** The tenants' endpoints, as delivery needs them (cached by the PostgreSQL adapter). */
export interface SubscriberLookup {
  /**
   * The endpoints subscribed to the type in the environment, disabled ones left out. Their payload
   * filters are not applied: the intake applies them (`filterAdmits`), since they need the
   * envelope and what they keep out is counted.
   */
  subscribers(
    tenantId: string,
    eventType: string,
    environment: EndpointEnvironment,
  ): Promise<DirectoryEndpoint[]>;
  endpoint(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null>;
  endpointForTest(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null>;
}

/** Where delivery records are written (group commit in PostgreSQL). */
export interface RecordStore {
  /** Resolves once the record is durable, or was dropped for a racing writer's. */
  record(commit: DeliveryCommit): Promise<RecordReceipt>;
}

/** The waits of deliveries that are not attempted now: retries, busy endpoints, re-drives. */
export interface DeliverySchedule {
  /** Due, unclaimed deliveries, the longest due first, but none of `skipEndpoints`. */
  claimDue(
    limit: number,
    leaseMs: number,
    skipEndpoints?: readonly string[],
  ): Promise<{ delivery: DeliveryRecord; payload: InboundEvent | undefined }[]>;
  /** The due, free heads of FIFO endpoints' queues (of one endpoint, given `endpointId`). */
  claimOrderedHeads(
    limit: number,
    leaseMs: number,
    endpointId?: string,
  ): Promise<{ delivery: DeliveryRecord; payload: InboundEvent | undefined }[]>;
  postpone(deliveryId: string, delayMs: number): Promise<void>;
  forget(deliveryId: string): Promise<void>;
  /** Due and unclaimed, but none of `skipEndpoints` (whose deliveries wait for a free slot). */
  dueBacklog(skipEndpoints?: readonly string[]): Promise<number>;
  /** Deliveries in FIFO endpoints' queues, which wait by design and are not in dueBacklog. */
  orderedWaiting(): Promise<number>;
}

/** The queues of FIFO endpoints (ADR 0045), as the intake tells them of a delivery due. */
export interface OrderedQueues {
  /** The endpoint's queue has a delivery due: its head is claimed now if it is free. */
  kick(endpointId: string): void;
}

/** Whether records can be written now: no work starts while they cannot. */
export interface RecordingGate {
  readonly healthy: boolean;
  /** Resolves once records can be written; rejects when the engine stops first. */
  whenHealthy(): Promise<void>;
  /** A write failed because the database is away. */
  failed(error: unknown): void;
}

/** Time, for the parts whose rules depend on it (tests pass a fake one). */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };
