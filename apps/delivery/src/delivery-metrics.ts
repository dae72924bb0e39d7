import { REJECTION_REASONS } from '@svc/contracts';
import { ATTEMPT_ERROR_KINDS, NumberingStatementObserver } from '@svc/deliveries';
import { ENDPOINT_STATUSES } from '@svc/webhook-endpoints';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RELAYED_OPERATIONAL_EVENT_TYPES } from './operational-events/operational-event';

/**
 * Which intake took a message (ADR 0032): the main consumer of platform events, a hot tenant's
 * lane, or the operational events' consumer. A label value, never a tenant.
 */
export const INTAKE_KINDS = ['main', 'lane', 'operational'] as const;
export type IntakeKind = (typeof INTAKE_KINDS)[number];

/** What happened to a lane (ADR 0032), as this engine did it. */
export const LANE_CHANGES = ['opened', 'reopened', 'closing', 'closed', 'refused'] as const;
export type LaneChange = (typeof LANE_CHANGES)[number];

/** Why a subscribed endpoint got no delivery of an event (ADR 0046): a label value. */
export const FILTERED_REASONS = ['filter'] as const;

/** The engine's own metrics (docs/operations.md, "Metrics"); labels are bounded: no ids. */
export class DeliveryMetrics {
  readonly eventsReceived!: Counter;
  readonly eventsRejected!: Counter<'reason'>;
  readonly eventsDuplicate!: Counter;
  readonly deliveriesFiltered!: Counter<'reason'>;
  readonly commitFailures!: Counter;
  readonly recordsHeld!: Gauge;
  readonly concurrentAttempts!: Counter;
  readonly attempts!: Counter<'outcome' | 'error_kind'>;
  readonly attemptDuration!: Histogram<'outcome'>;
  readonly deliveriesAbandoned!: Counter;
  readonly deliveriesDeferred!: Counter;
  readonly deliveriesRateLimited!: Counter;
  readonly retriesScheduled!: Counter;
  readonly publishToDelivered!: Histogram;
  readonly endpointTransitions!: Counter<'to'>;
  readonly commitBatchSize!: Histogram;
  readonly commitDuration!: Histogram;
  readonly numberingStatementSize!: Histogram;
  readonly numberingStatementDuration!: Histogram;
  readonly inFlight!: Gauge;
  readonly dueBacklog!: Gauge;
  readonly orderedWaiting!: Gauge;
  readonly operationalEventsPublished!: Counter<'type'>;
  readonly operationalOutboxBacklog!: Gauge;
  readonly intakeWait!: Histogram<'intake'>;
  readonly messagesSkipped!: Counter;
  readonly lanesOpen!: Gauge;
  readonly lanePending!: Gauge;
  readonly laneChanges!: Counter<'change'>;

  /**
   * Labelled series are created at zero for every label value: a series that first appears at 1
   * is invisible to rate() and increase(), so an alert would miss the first rejection or failure
   * after each start, and ratios would have nothing to divide. prom-client's `.labels(...)` creates
   * nothing until the first inc() or observe(); `inc(labels, 0)` and `zero(labels)` do.
   */
  constructor(registry: Registry) {
    const registers = [registry];
    eventAndRecordMetrics(this, registers);
    attemptAndScheduleMetrics(this, registers);
    intakeAndLaneMetrics(this, registers);
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Each builds a part of DeliveryMetrics: one constructor of 160 lines read as three. */
function eventAndRecordMetrics(metrics: Mutable<DeliveryMetrics>, registers: Registry[]): void {
  metrics.eventsReceived = new Counter({
    name: 'svc_delivery_events_received_total',
    help: 'Event messages taken from JetStream, valid or not.',
    registers,
  });
  metrics.eventsRejected = new Counter({
    name: 'svc_delivery_events_rejected_total',
    help: 'Event messages parked on the dead-letter subject, by reason.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of REJECTION_REASONS) {
    metrics.eventsRejected.inc({ reason }, 0);
  }
  metrics.eventsDuplicate = new Counter({
    name: 'svc_delivery_events_duplicate_total',
    help: 'Event messages whose tenant and id were already ingested with the same body: acknowledged, never delivered again.',
    registers,
  });
  metrics.deliveriesFiltered = new Counter({
    name: 'svc_delivery_filtered_total',
    help: "Deliveries not made because the endpoint's payload filter refused the event, by reason: no delivery, no attempt, no sequence number.",
    labelNames: ['reason'],
    registers,
  });
  for (const reason of FILTERED_REASONS) {
    metrics.deliveriesFiltered.inc({ reason }, 0);
  }
  metrics.commitFailures = new Counter({
    name: 'svc_delivery_commit_failures_total',
    help: 'Group commits that failed for another reason than a conflict (the database is away); their records are kept and written again.',
    registers,
  });
  metrics.recordsHeld = new Gauge({
    name: 'svc_delivery_records_held',
    help: 'Delivery records kept in memory because commits fail; the engine takes no new work meanwhile.',
    registers,
  });
  metrics.concurrentAttempts = new Counter({
    name: 'svc_delivery_concurrent_attempts_total',
    help: 'Attempts that raced another writer of the same delivery (a republished or redelivered event): recorded in the delivery that won.',
    registers,
  });
  metrics.attempts = new Counter({
    name: 'svc_delivery_attempts_total',
    help: 'Delivery attempts recorded, by outcome (succeeded, failed) and error kind (none on success).',
    labelNames: ['outcome', 'error_kind'],
    registers,
  });
  for (const kind of ATTEMPT_ERROR_KINDS) {
    metrics.attempts.inc({ outcome: 'failed', error_kind: kind }, 0);
  }
  metrics.attempts.inc({ outcome: 'succeeded', error_kind: 'none' }, 0);
  metrics.attemptDuration = new Histogram({
    name: 'svc_delivery_attempt_duration_seconds',
    help: 'Time of one attempt, from connecting to the last byte of the answer.',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  for (const outcome of ['succeeded', 'failed']) {
    metrics.attemptDuration.zero({ outcome });
  }
}

function attemptAndScheduleMetrics(metrics: Mutable<DeliveryMetrics>, registers: Registry[]): void {
  metrics.deliveriesAbandoned = new Counter({
    name: 'svc_delivery_deliveries_abandoned_total',
    help: 'Deliveries abandoned after their last attempt failed.',
    registers,
  });
  metrics.deliveriesDeferred = new Counter({
    name: 'svc_delivery_deliveries_deferred_total',
    help: 'First attempts put off to the schedule because their endpoint was at its concurrency limit.',
    registers,
  });
  metrics.deliveriesRateLimited = new Counter({
    name: 'svc_delivery_deliveries_rate_limited_total',
    help: "Attempts put off to a later second because their endpoint's rate limit was reached in this one: not sent, and no attempt counted.",
    registers,
  });
  metrics.retriesScheduled = new Counter({
    name: 'svc_delivery_retries_scheduled_total',
    help: 'Failed attempts followed by a scheduled retry.',
    registers,
  });
  metrics.publishToDelivered = new Histogram({
    name: 'svc_delivery_publish_to_delivered_seconds',
    help: 'From the event reaching JetStream to its successful delivery being recorded.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
    registers,
  });
  metrics.endpointTransitions = new Counter({
    name: 'svc_delivery_endpoint_status_transitions_total',
    help: 'Endpoint status changes made by delivery outcomes, by new status.',
    labelNames: ['to'],
    registers,
  });
  for (const to of ENDPOINT_STATUSES) {
    metrics.endpointTransitions.inc({ to }, 0);
  }
  metrics.commitBatchSize = new Histogram({
    name: 'svc_delivery_commit_batch_size',
    help: 'Delivery records written per transaction (group commit).',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
    registers,
  });
  metrics.commitDuration = new Histogram({
    name: 'svc_delivery_commit_duration_seconds',
    help: 'Time of one group-commit transaction.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  metrics.numberingStatementSize = new Histogram({
    name: 'svc_delivery_numbering_statement_size',
    help: "New events numbered per numbering statement, each its own commit before the event's first POST (ADR 0045, 0050).",
    buckets: [1, 2, 3, 4, 6, 8, 12, 16],
    registers,
  });
  metrics.numberingStatementDuration = new Histogram({
    name: 'svc_delivery_numbering_statement_duration_seconds',
    help: 'Time of one numbering statement, commit included.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  metrics.inFlight = new Gauge({
    name: 'svc_delivery_attempts_in_flight',
    help: 'Attempts waiting for an answer right now.',
    registers,
  });
}

function intakeAndLaneMetrics(metrics: Mutable<DeliveryMetrics>, registers: Registry[]): void {
  metrics.dueBacklog = new Gauge({
    name: 'svc_delivery_due_backlog',
    help: 'Scheduled attempts whose time has come, not yet claimed (sampled by the scheduler), but not those of endpoints with no free slot in the sampling engine.',
    registers,
  });
  metrics.orderedWaiting = new Gauge({
    name: 'svc_delivery_ordered_waiting',
    help: "Deliveries in FIFO endpoints' queues, heads included (sampled by the scheduler, ADR 0045).",
    registers,
  });
  metrics.operationalEventsPublished = new Counter({
    name: 'svc_delivery_operational_events_published_total',
    help: 'Operational events (webhook.*) the outbox relay published to JetStream, by type (ADR 0030).',
    labelNames: ['type'],
    registers,
  });
  for (const type of RELAYED_OPERATIONAL_EVENT_TYPES) {
    metrics.operationalEventsPublished.inc({ type }, 0);
  }
  metrics.operationalOutboxBacklog = new Gauge({
    name: 'svc_delivery_operational_outbox_backlog',
    help: 'Operational events recorded and not yet published (outbox rows; sampled by the relay).',
    registers,
  });
  metrics.intakeWait = new Histogram({
    name: 'svc_delivery_intake_wait_seconds',
    help: 'From an event reaching JetStream to an intake taking it into hand, by intake (main, lane, operational): how long the events of tenants without a lane wait behind others (ADR 0032).',
    labelNames: ['intake'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  for (const intake of INTAKE_KINDS) {
    metrics.intakeWait.zero({ intake });
  }
  metrics.messagesSkipped = new Counter({
    name: 'svc_delivery_intake_messages_skipped_total',
    help: "Messages the main intake acknowledged without handling them because a hot tenant's lane covers them (ADR 0032).",
    registers,
  });
  metrics.lanesOpen = new Gauge({
    name: 'svc_delivery_intake_lanes_open',
    help: 'Hot-tenant lanes in the registry as this engine last read it, closing ones included (ADR 0032).',
    registers,
  });
  metrics.lanePending = new Gauge({
    name: 'svc_delivery_intake_lanes_pending_messages',
    help: 'Messages of the hot tenants waiting in their lanes (JetStream num_pending, summed over the lanes, as this engine last read it).',
    registers,
  });
  metrics.laneChanges = new Counter({
    name: 'svc_delivery_intake_lane_changes_total',
    help: 'Hot-tenant lanes this engine opened, reopened, began closing or closed, and hot tenants it refused a lane because all were taken (INTAKE_LANES_MAX).',
    labelNames: ['change'],
    registers,
  });
  for (const change of LANE_CHANGES) {
    metrics.laneChanges.inc({ change }, 0);
  }
}

/** What DeliveryWorkQueue's numbering statements report, recorded in the engine's histograms. */
export function numberingStatementsMeasured(
  metrics: Pick<DeliveryMetrics, 'numberingStatementSize' | 'numberingStatementDuration'>,
): NumberingStatementObserver {
  return (events, seconds) => {
    metrics.numberingStatementSize.observe(events);
    metrics.numberingStatementDuration.observe(seconds);
  };
}
