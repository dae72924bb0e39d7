import type { EventPublisher } from '@svc/event-publisher';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchEvents } from './bench-events';
import type { DeliveryLogProbe } from './delivery-log-probe';
import type { EngineProcess } from './engine-process';
import { cpuSecondsOf, CpuGroups, CpuMeter } from './process-stats';
import type { ReceiverProcess } from './receiver-process';
import { MetricSample, MetricsDelta } from './stats';

/** Outstanding publishes at once: EventPublisher awaits each PubAck, so they are overlapped. */
const PUBLISH_WINDOW = 256;

export interface EngineRunContext {
  /** The engine processes consuming the run's events (two or more in the replicas scenario). */
  engines: EngineProcess[];
  receiver: ReceiverProcess;
  probe: DeliveryLogProbe;
  publisher: EventPublisher;
  events: BenchEvents;
  /** The tenant whose events the run publishes. */
  tenantId: string;
  /** Deliveries each event makes that the run waits for: to the endpoints whose answers count. */
  deliveriesPerEvent: number;
  cpuGroups: CpuGroups;
  timeoutMs: number;
}

/** One measured run of the engine, all figures over that run only. */
export interface EngineRunResult {
  name: string;
  events: number;
  deliveries: number;
  /** Time to hand every event to JetStream (PubAck received). */
  publishMs: number;
  /** First publish to the moment PostgreSQL held every delivery as succeeded (polled every 10 ms once the receiver had them all). */
  elapsedMs: number;
  /** First publish to the recorded_at of the newest attempt event (its transaction's start). */
  elapsedToLastRecordMs: number;
  /** Deliveries PostgreSQL holds as succeeded at that moment, divided by elapsedMs. */
  deliveriesPerSecond: number;
  /** Increase of the delivery log over the run, counted in PostgreSQL. */
  log: {
    deliveries: number;
    succeeded: number;
    attempts: number;
    failedAttempts: number;
    deferred: number;
  };
  receiver: {
    /** First attempts at the endpoints whose answers count. */
    requests: number;
    /** Later attempts (retries) at those endpoints, and requests to the others (failing, hanging). */
    retries: number;
    uncounted: number;
    /** Receiver arrival (the whole request) minus the envelope's created_at, set just before publishing; counted first attempts only. */
    latencyMs: { p50: number; p90: number; p99: number; max: number };
  };
  /** From the engine's /metrics, increase over the run. */
  engine: {
    publishToDeliveredMs: { p50: number; p99: number };
    attemptDurationMs: { p50: number; p99: number };
    commits: number;
    commitBatchSize: { mean: number; p50: number };
    commitDurationMs: { mean: number; p99: number };
    /** Numbering statements: each its own commit before the first POST of the events it numbers. */
    numberingStatements: number;
    numberingDurationMs: { mean: number; p99: number };
    deferred: number;
    /** Subscribed endpoints whose payload filter refused an event (no delivery made for them). */
    filteredOut: number;
    attemptsSucceeded: number;
    attemptsFailed: number;
    eventLoopLagP99Ms: number;
  };
  /** CPU seconds (user + system, /proc/<pid>/stat) the engine processes used during the run. */
  engineCpuSeconds: number;
  /** The same per 1,000 deliveries waited for (per 1,000 attempts: divide by log.attempts). */
  engineCpuSecondsPer1000: number;
  /** Deferrals (engine metric) per 10,000 deliveries waited for. */
  deferralsPer10000: number;
  /** Average cores busy per process group during the run (the machine has os.availableParallelism()). */
  cpuCores: Record<string, number>;
}

/** The samples of several engines' /metrics as one process's: counters and buckets add up. */
async function metricsOf(engines: EngineProcess[]): Promise<MetricSample[]> {
  return (await Promise.all(engines.map((engine) => engine.metrics()))).flat();
}

const cpuSecondsOfAll = (engines: EngineProcess[]) =>
  engines.reduce((total, engine) => total + cpuSecondsOf(engine.pid), 0);

export async function publishBurst(
  publisher: EventPublisher,
  events: BenchEvents,
  count: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await publisher.publish(events.next());
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUBLISH_WINDOW, count) }, worker));
}

/** Publishes `count` events evenly spread at `perSecond`. */
export async function publishPaced(
  publisher: EventPublisher,
  events: BenchEvents,
  count: number,
  perSecond: number,
): Promise<void> {
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let index = 0; index < count; index += 1) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 1) {
      await sleep(wait);
    }
    pending.push(publisher.publish(events.next()));
  }
  await Promise.all(pending);
}

const ms = (seconds: number) => seconds * 1000;

/**
 * Publishes `events` events and waits until the receiver has had every counted delivery (first
 * attempts to the endpoints that answer 200) and PostgreSQL holds every one as succeeded; the
 * clock runs from the first publish to that durable state.
 */
export async function measureEngineRun(
  context: EngineRunContext,
  name: string,
  events: number,
  publish: (count: number) => Promise<void>,
): Promise<EngineRunResult> {
  const { engines, receiver, probe } = context;
  const deliveries = events * context.deliveriesPerEvent;
  receiver.phase(name);
  const before = await probe.counts();
  const metricsBefore = await metricsOf(engines);
  const cpu = new CpuMeter(context.cpuGroups);
  const engineCpuBefore = cpuSecondsOfAll(engines);
  const startedAtMs = Date.now();
  const started = performance.now();
  await publish(events);
  const publishMs = performance.now() - started;
  const deadline = started + context.timeoutMs;
  const remaining = () => Math.max(1, deadline - performance.now());
  try {
    await receiver.reached(deliveries, remaining());
  } catch (error) {
    const stats = await receiver.stats();
    throw new Error(
      `${name}: ${stats.count} of ${deliveries} deliveries reached the receiver in time ` +
        `(${(error as Error).message})`,
      { cause: error },
    );
  }
  let doneAt = NaN;
  let durable = 0;
  while (Number.isNaN(doneAt)) {
    const succeeded = await probe.succeededSince(context.tenantId, startedAtMs);
    if (succeeded >= deliveries) {
      doneAt = performance.now();
      durable = succeeded;
    } else if (remaining() <= 1) {
      throw new Error(`${name}: ${succeeded} of ${deliveries} deliveries recorded as succeeded`);
    } else {
      await sleep(10);
    }
  }
  const cpuCores = cpu.coresUsed();
  const engineCpuSeconds = cpuSecondsOfAll(engines) - engineCpuBefore;
  const elapsedMs = doneAt - started;
  const after = await probe.counts();
  const metricsAfter = await Promise.all(engines.map((engine) => engine.metrics()));
  const metrics = new MetricsDelta(metricsBefore, metricsAfter.flat());
  const deferred = metrics.increase('svc_delivery_deliveries_deferred_total');
  const stats = await receiver.stats();
  return {
    name,
    events,
    deliveries,
    publishMs,
    elapsedMs,
    elapsedToLastRecordMs: after.lastAttemptRecordedAt - startedAtMs,
    deliveriesPerSecond: durable / (elapsedMs / 1000),
    log: {
      deliveries: after.deliveries - before.deliveries,
      succeeded: after.succeeded - before.succeeded,
      attempts: after.attempts - before.attempts,
      failedAttempts: after.failedAttempts - before.failedAttempts,
      deferred: after.deferred - before.deferred,
    },
    receiver: {
      requests: stats.count,
      retries: stats.retries,
      uncounted: stats.uncounted,
      latencyMs: {
        p50: stats.latencyMs.p50,
        p90: stats.latencyMs.p90,
        p99: stats.latencyMs.p99,
        max: stats.latencyMs.max,
      },
    },
    engine: {
      publishToDeliveredMs: {
        p50: ms(metrics.histogramQuantile('svc_delivery_publish_to_delivered_seconds', 0.5)),
        p99: ms(metrics.histogramQuantile('svc_delivery_publish_to_delivered_seconds', 0.99)),
      },
      attemptDurationMs: {
        p50: ms(metrics.histogramQuantile('svc_delivery_attempt_duration_seconds', 0.5)),
        p99: ms(metrics.histogramQuantile('svc_delivery_attempt_duration_seconds', 0.99)),
      },
      commits: metrics.increase('svc_delivery_commit_batch_size_count'),
      commitBatchSize: {
        mean: metrics.histogramMean('svc_delivery_commit_batch_size'),
        p50: metrics.histogramQuantile('svc_delivery_commit_batch_size', 0.5),
      },
      commitDurationMs: {
        mean: ms(metrics.histogramMean('svc_delivery_commit_duration_seconds')),
        p99: ms(metrics.histogramQuantile('svc_delivery_commit_duration_seconds', 0.99)),
      },
      numberingStatements: metrics.increase('svc_delivery_numbering_statement_size_count'),
      numberingDurationMs: {
        mean: ms(metrics.histogramMean('svc_delivery_numbering_statement_duration_seconds')),
        p99: ms(
          metrics.histogramQuantile('svc_delivery_numbering_statement_duration_seconds', 0.99),
        ),
      },
      deferred,
      filteredOut: metrics.increase('svc_delivery_filtered_total'),
      attemptsSucceeded: metrics.increase('svc_delivery_attempts_total', { outcome: 'succeeded' }),
      attemptsFailed: metrics.increase('svc_delivery_attempts_total', { outcome: 'failed' }),
      // With several engines, the worst of them.
      eventLoopLagP99Ms: ms(
        Math.max(
          ...metricsAfter.map((samples) =>
            new MetricsDelta([], samples).latest('nodejs_eventloop_lag_p99_seconds'),
          ),
        ),
      ),
    },
    engineCpuSeconds,
    engineCpuSecondsPer1000: (engineCpuSeconds / deliveries) * 1000,
    deferralsPer10000: (deferred / deliveries) * 10_000,
    cpuCores,
  };
}
