import { derivedId, eventRetentionTime } from '@svc/contracts';
import { maintainPartitions, openDataSource } from '@svc/database';
import {
  decideAttempted,
  DeliveryEvent,
  InboundPayload,
  projectDeliveryEvents,
  resultOfStatus,
  storePayloads,
} from '@svc/deliveries';
import { appendToStreams } from '@svc/event-store';
import { BenchEvents } from '../bench-events';
import { dec, int, rssTarget, spreadOf, TARGETS } from '../bench-report';
import type { BenchEndpoint } from '../bench-stack';
import { alternateBursts } from './paired';
import { ScenarioKit, ScenarioOutcome, Stack, startReceiver, warmUp } from './scenario-kit';

/** Deliveries written per transaction: whole events, about a thousand deliveries. */
const DELIVERIES_PER_TRANSACTION = 1000;
/** As the product's defaults: where delivery data may be written (ADR 0023). */
const RETENTION_WINDOW = { retentionMs: 30 * 86_400_000, partitionWidthMs: 86_400_000 };
/** A failed first attempt as the engine records one: the endpoint answered 500 in 3 ms. */
const FAILED_ANSWER = resultOfStatus(500, 3, null);

/**
 * backlog: first-attempt throughput while BENCH_BACKLOG_RETRIES deliveries wait in PostgreSQL for
 * their retry, against a baseline without them, in alternating bursts. The backlog is written as
 * the engine writes a failed first attempt (the same decision, append and projections, in
 * transactions of about 1,000 deliveries): its events, stored bodies, deliveries, attempts and
 * schedule rows, to the same endpoints. By default the retries fall due after the measured runs
 * (BENCH_BACKLOG_DUE_AFTER_SECONDS), so the figure is the cost of the backlog being there (the
 * claim queries, the larger tables and indexes); with 0 they fall due during the runs and the
 * engine also makes them (counted apart, as retries).
 */
export async function backlog(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings, log } = kit;
  const { retries, dueAfterSeconds, dueSpreadSeconds } = settings.backlog;
  const receiver = await startReceiver(kit, settings.endpoints);
  const base = await Stack.prepare(kit, 'baseline', receiver);
  const loaded = await Stack.prepare(kit, 'with backlog', receiver);

  const written = await writeBacklog(kit, loaded, retries, dueAfterSeconds, dueSpreadSeconds);
  log(
    `with backlog: ${written.deliveries} deliveries pending a retry written in ` +
      `${written.seconds.toFixed(1)} s; due from ${written.firstDueAt} to ${written.lastDueAt}`,
  );

  await base.startEngines(1);
  await loaded.startEngines(1);
  const perEvent = settings.endpoints;
  const baseSide = {
    label: 'baseline',
    context: base.context(receiver, new BenchEvents(base.tenantId, settings.bodyBytes), perEvent),
  };
  const loadedSide = {
    label: 'with backlog',
    context: loaded.context(
      receiver,
      new BenchEvents(loaded.tenantId, settings.bodyBytes),
      perEvent,
    ),
  };
  await warmUp(kit, baseSide.context, baseSide.label);
  await warmUp(kit, loadedSide.context, loadedSide.label);
  const paired = await alternateBursts(kit, baseSide, loadedSide, settings.events);
  const scheduledAtEnd = await loaded.probe.scheduled();

  const baseline = spreadOf(paired.baseline.map((run) => run.deliveriesPerSecond));
  const withBacklog = spreadOf(paired.scenario.map((run) => run.deliveriesPerSecond));
  const share = withBacklog.median / baseline.median;
  const engines = [...(await base.stopEngines()), ...(await loaded.stopEngines())];
  const medianOf = (runs: typeof paired.baseline, pick: (run: (typeof runs)[number]) => number) =>
    spreadOf(runs.map(pick)).median;
  return {
    description:
      `first attempts (bursts of ${settings.events} events to ${settings.endpoints} endpoints) ` +
      `while ${retries} deliveries wait for a retry in PostgreSQL, against a baseline without them`,
    settings: {
      retries,
      dueAfterSeconds,
      dueSpreadSeconds,
      events: settings.events,
      endpoints: settings.endpoints,
    },
    figures: {
      deliveriesPerSecond: withBacklog,
      baselineDeliveriesPerSecond: baseline,
      shareOfBaseline: share,
      backlogWritten: written.deliveries,
      backlogWriteSeconds: written.seconds,
      backlogScheduledAtEnd: scheduledAtEnd,
      retriesMadeDuringRuns: paired.scenario.reduce(
        (total, run) => total + run.receiver.retries,
        0,
      ),
      burstP99Ms: medianOf(paired.scenario, (run) => run.receiver.latencyMs.p99),
      baselineBurstP99Ms: medianOf(paired.baseline, (run) => run.receiver.latencyMs.p99),
      engineCpuSecondsPer1000: medianOf(paired.scenario, (run) => run.engineCpuSecondsPer1000),
      baselineEngineCpuSecondsPer1000: medianOf(
        paired.baseline,
        (run) => run.engineCpuSecondsPer1000,
      ),
      deferralsPer10000: medianOf(paired.scenario, (run) => run.deferralsPer10000),
      headline:
        `${int(withBacklog.median)}/s with ${retries} retries waiting, ` +
        `${int(baseline.median)}/s without (${dec(share * 100, 1)} %)`,
    },
    targets: [
      {
        name: 'first-attempt throughput over the baseline',
        target: `>= ${TARGETS.backlogThroughputShare}`,
        measured: share,
        met: share >= TARGETS.backlogThroughputShare,
      },
      rssTarget(engines),
    ],
    engines,
    runs: paired.runs,
  };
}

/**
 * Writes `count` deliveries pending their second attempt to the stack's endpoints, due evenly
 * from `dueAfterSeconds` on over `dueSpreadSeconds`, then ANALYZEs the tables (a backlog built
 * up over time would have been analysed by autovacuum).
 */
async function writeBacklog(
  kit: ScenarioKit,
  stack: Stack,
  count: number,
  dueAfterSeconds: number,
  dueSpreadSeconds: number,
): Promise<{ deliveries: number; seconds: number; firstDueAt: string; lastDueAt: string }> {
  const started = performance.now();
  const dataSource = await openDataSource({ url: stack.databaseUrl, poolSize: 1 });
  const endpoints = stack.endpoints;
  const eventsPerTransaction = Math.max(
    1,
    Math.floor(DELIVERIES_PER_TRANSACTION / endpoints.length),
  );
  const events = new BenchEvents(stack.tenantId, kit.settings.bodyBytes);
  const firstDue = Date.now() + dueAfterSeconds * 1000;
  const step = count > 1 ? (dueSpreadSeconds * 1000) / (count - 1) : 0;
  let written = 0;
  try {
    // The partitions of delivery data, as an engine makes them when it starts (ADR 0023).
    await maintainPartitions(dataSource, RETENTION_WINDOW, new Date(), { drop: false });
    while (written < count) {
      kit.cleanup.check();
      const batch: { payload: InboundPayload; endpoint: BenchEndpoint; dueAt: number }[] = [];
      for (let e = 0; e < eventsPerTransaction && written + batch.length < count; e += 1) {
        const envelope = events.next();
        const now = new Date();
        const payload: InboundPayload = {
          eventId: envelope.id,
          tenantId: envelope.tenant_id,
          type: envelope.type,
          body: JSON.stringify(envelope),
          traceContext: null,
          retentionKey: eventRetentionTime(envelope.created_at, now, RETENTION_WINDOW),
        };
        for (const endpoint of endpoints) {
          if (written + batch.length >= count) {
            break;
          }
          batch.push({ payload, endpoint, dueAt: firstDue + step * (written + batch.length) });
        }
      }
      await dataSource.transaction(async (manager) => {
        await storePayloads(manager, [...new Set(batch.map((b) => b.payload))]);
        const attemptedAt = new Date();
        const appended = await appendToStreams<DeliveryEvent>(
          manager,
          batch.map(({ payload, endpoint, dueAt }) => {
            const identity = {
              delivery_id: derivedId('del', payload.retentionKey, [
                payload.tenantId,
                payload.eventId,
                endpoint.id,
              ]),
              event_id: payload.eventId,
              endpoint_id: endpoint.id,
              tenant_id: payload.tenantId,
              event_type: payload.type,
            };
            // The product's policy with the first delay set so that the retry falls due at dueAt.
            const policy = {
              retryScheduleMs: [Math.max(0, dueAt - attemptedAt.getTime())],
              maxAttempts: 5,
            };
            const { event } = decideAttempted(
              { identity, result: FAILED_ANSWER, policy },
              null,
              attemptedAt,
            );
            return {
              streamId: identity.delivery_id,
              expectedVersion: 0,
              events: [{ ...event, metadata: { tenant_id: identity.tenant_id } }],
            };
          }),
        );
        await projectDeliveryEvents(manager, new Map(), appended);
      });
      written += batch.length;
      if (written % 20_000 < batch.length) {
        kit.log(`with backlog: ${written} of ${count} written`);
      }
    }
    await dataSource.query(
      'ANALYZE events, deliveries, delivery_attempts, delivery_schedule, inbound_events',
    );
  } finally {
    await dataSource.destroy();
  }
  return {
    deliveries: written,
    seconds: (performance.now() - started) / 1000,
    firstDueAt: new Date(firstDue).toISOString(),
    lastDueAt: new Date(firstDue + step * Math.max(0, count - 1)).toISOString(),
  };
}
