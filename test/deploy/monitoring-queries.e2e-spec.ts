import { jetstream } from '@nats-io/jetstream';
import { SubjectScheme } from '@svc/contracts';
import { http } from '@svc/testing';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';
import { exportersExposition } from './exporter-metrics';
import { dashboard, dashboardQueries, ruleQueries } from './monitoring-files';
import {
  Exposition,
  namesInQuery,
  parseExposition,
  SourcedQuery,
  unknownNames,
} from './promql-names';
import { ScrapedApp, scrapeAfterTraffic, startedApps, startingApps } from './running-apps';

/**
 * deploy/ must only query what the apps really export: this starts the three real apps, scrapes
 * their /metrics, and checks every PromQL expression of the Grafana dashboard and the Prometheus
 * alert rules against what they export, both as freshly started and, for the delivery engine,
 * after real work. The rules on the NATS and PostgreSQL clusters of deploy/'s components read
 * those clusters' exporters, whose names exporter-metrics.ts lists from their sources.
 */

/** The value of one sample of a scrape whose labels include `labels`, or undefined. */
function sampleValue(
  text: string,
  metric: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!sample || sample[1] !== metric) continue;
    const present = new Map(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map(
        ([, name, value]) => [name, value],
      ),
    );
    if (Object.entries(labels).every(([name, value]) => present.get(name) === value)) {
      return Number(sample[3]);
    }
  }
  return undefined;
}

/**
 * What the delivery engine must have counted after exerciseDeliveryEngine(): one event to two
 * endpoints (one answers 200, the other 500 twice: a retry, then abandoned with
 * DELIVERY_MAX_ATTEMPTS=2, which degrades the endpoint) and one message that is not JSON. The
 * abandonment and the degradation come back to the engine as operational events (ADR 0030) and
 * are received too: four in all, once the outbox relay has published them. (Counted as two, the
 * check passed only when the scrape came before the relay's turn.)
 */
const ENGINE_AT_WORK: [metric: string, labels: Record<string, string>, value: number][] = [
  ['svc_delivery_events_received_total', {}, 4],
  ['svc_delivery_events_rejected_total', { reason: 'invalid-json' }, 1],
  ['svc_delivery_attempts_total', { outcome: 'succeeded', error_kind: 'none' }, 1],
  ['svc_delivery_attempts_total', { outcome: 'failed', error_kind: 'http_status' }, 2],
  ['svc_delivery_attempt_duration_seconds_count', { outcome: 'succeeded' }, 1],
  ['svc_delivery_attempt_duration_seconds_count', { outcome: 'failed' }, 2],
  ['svc_delivery_retries_scheduled_total', {}, 1],
  ['svc_delivery_deliveries_abandoned_total', {}, 1],
  ['svc_delivery_endpoint_status_transitions_total', { to: 'degraded' }, 1],
  ['svc_delivery_publish_to_delivered_seconds_count', {}, 1],
];

/** Real traffic through the real engine; resolves with its scrape once everything is counted. */
async function exerciseDeliveryEngine(
  stack: DeliveryStack,
  receiver: HttpsReceiver,
): Promise<string> {
  const { tenantId, key } = await stack.newTenant();
  await stack.registerEndpoint(key, `${receiver.url}/ok`);
  await stack.registerEndpoint(key, `${receiver.url}/failing`);
  await stack.publish(tenantId);
  const subjects = new SubjectScheme(stack.settings.subjectRoot);
  await jetstream(stack.nats).publish(
    subjects.event(tenantId, 'alert.created'),
    '{"id": "evt_broken", ',
  );
  return waitFor(
    async () => {
      const { text } = await http(stack.engine.managementUrl, 'GET', '/metrics');
      const done = ENGINE_AT_WORK.every(
        ([metric, labels, value]) => (sampleValue(text, metric, labels) ?? 0) >= value,
      );
      return done && (sampleValue(text, 'svc_delivery_commit_batch_size_count') ?? 0) > 0 && text;
    },
    { what: 'the delivery engine to count one success, one abandonment and one rejection' },
  );
}

describe('dashboard and alert queries use only metrics the apps export', () => {
  let apps: ScrapedApp[] = [];
  let stack: DeliveryStack | undefined;
  let receiver: HttpsReceiver | undefined;
  /** api, auth and a delivery engine, all freshly started. */
  const exported: Exposition = { metrics: new Set(), labels: new Set() };
  const scrapes = new Map<string, string>();
  /** api and auth as above, and a delivery engine after real work (exerciseDeliveryEngine). */
  const exportedAtWork: Exposition = { metrics: new Set(), labels: new Set() };
  let engineAtWork = '';

  beforeAll(async () => {
    const [threeApps, [deliveryStack, httpsReceiver]] = await Promise.all([
      Promise.allSettled(startingApps()),
      Promise.allSettled([
        startDeliveryStack({ DELIVERY_MAX_ATTEMPTS: '2' }),
        startHttpsReceiver({
          behaviour: (request) => ({ status: request.path === '/failing' ? 500 : 200 }),
        }),
      ]),
    ]);
    apps = startedApps(threeApps);
    stack = deliveryStack.status === 'fulfilled' ? deliveryStack.value : undefined;
    receiver = httpsReceiver.status === 'fulfilled' ? httpsReceiver.value : undefined;
    const failure = [...threeApps, deliveryStack, httpsReceiver].find(
      (result) => result.status === 'rejected',
    );
    if (failure) throw failure.reason;

    for (const app of apps) {
      const scrape = await scrapeAfterTraffic(app);
      scrapes.set(app.name, scrape);
      parseExposition(scrape, exported);
      if (app.name !== 'delivery') parseExposition(scrape, exportedAtWork);
    }
    engineAtWork = await exerciseDeliveryEngine(stack!, receiver!);
    parseExposition(engineAtWork, exportedAtWork);
    // the NATS and PostgreSQL clusters' exporters (exporter-metrics.ts), for their rules
    const exporters = exportersExposition();
    for (const into of [exported, exportedAtWork]) {
      exporters.metrics.forEach((metric) => into.metrics.add(metric));
      exporters.labels.forEach((label) => into.labels.add(label));
    }
  });

  afterAll(async () => {
    await Promise.all([...apps.map((app) => app.close()), receiver?.close(), stack?.close()]);
  });

  it('scrapes each app, labelled with its own app name', () => {
    expect([...scrapes.keys()].sort()).toEqual(['api', 'auth', 'delivery']);
    for (const [name, text] of scrapes) {
      expect(text).toMatch(
        new RegExp(`^http_requests_total\\{[^}]*route="/healthz"[^}]*app="${name}"`, 'm'),
      );
      expect(text).toMatch(
        new RegExp(`^http_request_duration_seconds_bucket\\{[^}]*app="${name}"`, 'm'),
      );
    }
    for (const name of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_sum',
      'http_request_duration_seconds_count',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(exported.metrics.has(name)).toBe(true);
    }
  });

  it('has queries to check', () => {
    const dashboard = dashboardQueries();
    const rules = ruleQueries();
    expect(dashboard.length).toBeGreaterThanOrEqual(10);
    expect(rules.length).toBeGreaterThanOrEqual(4);
    const used = new Set(
      [...dashboard, ...rules]
        .filter((query) => !query.grafanaVariable)
        .flatMap((query) => namesInQuery(query.expr).metrics),
    );
    expect([...used].sort()).toEqual(
      expect.arrayContaining([
        'http_request_duration_seconds_bucket',
        'http_requests_total',
        'nodejs_eventloop_lag_p99_seconds',
        'process_resident_memory_bytes',
        'svc_delivery_attempts_total',
        'svc_delivery_due_backlog',
        'svc_delivery_events_rejected_total',
        'svc_delivery_publish_to_delivered_seconds_bucket',
        'up',
      ]),
    );
  });

  it('a fresh delivery engine exports every labelled series at zero (increase() sees the first one)', () => {
    const fresh = scrapes.get('delivery')!;
    const expected: [string, Record<string, string>][] = [
      ...['invalid-json', 'invalid-envelope', 'subject-mismatch'].map(
        (reason): [string, Record<string, string>] => [
          'svc_delivery_events_rejected_total',
          { reason },
        ],
      ),
      ['svc_delivery_attempts_total', { outcome: 'succeeded', error_kind: 'none' }],
      ['svc_delivery_attempts_total', { outcome: 'failed', error_kind: 'http_status' }],
      ['svc_delivery_attempts_total', { outcome: 'failed', error_kind: 'timeout' }],
      ['svc_delivery_attempts_total', { outcome: 'failed', error_kind: 'secret_unavailable' }],
      ['svc_delivery_attempt_duration_seconds_count', { outcome: 'succeeded' }],
      ['svc_delivery_attempt_duration_seconds_bucket', { outcome: 'failed', le: '+Inf' }],
      ['svc_delivery_endpoint_status_transitions_total', { to: 'degraded' }],
      ['svc_delivery_endpoint_status_transitions_total', { to: 'active' }],
    ];
    expect(
      expected.map(([metric, labels]) => [metric, labels, sampleValue(fresh, metric, labels)]),
    ).toEqual(expected.map(([metric, labels]) => [metric, labels, 0]));
  });

  it('the delivery engine at work counted exactly what it did', () => {
    expect(
      ENGINE_AT_WORK.map(([metric, labels]) => [
        metric,
        labels,
        sampleValue(engineAtWork, metric, labels),
      ]),
    ).toEqual(ENGINE_AT_WORK);
    expect(sampleValue(engineAtWork, 'svc_delivery_commit_duration_seconds_count')).toBeGreaterThan(
      0,
    );
    // Every new event is numbered before its first POST, in a statement of its own or shared.
    const numberingStatements =
      sampleValue(engineAtWork, 'svc_delivery_numbering_statement_duration_seconds_count') ?? 0;
    expect(numberingStatements).toBeGreaterThan(0);
    expect(sampleValue(engineAtWork, 'svc_delivery_numbering_statement_size_count')).toBe(
      numberingStatements,
    );
    expect(
      sampleValue(engineAtWork, 'svc_delivery_numbering_statement_size_sum'),
    ).toBeGreaterThanOrEqual(numberingStatements);
  });

  it('every metric and label name they use is exported by the delivery engine at work too', () => {
    expect(unknownNames([...dashboardQueries(), ...ruleQueries()], exportedAtWork)).toEqual({
      metrics: [],
      labels: [],
    });
  });

  it('every metric name in the dashboard and the alert rules is exported by some app (or exporter)', () => {
    expect(unknownNames([...dashboardQueries(), ...ruleQueries()], exported).metrics).toEqual([]);
  });

  it('every label name they use is exported or attached by the scrape', () => {
    expect(unknownNames([...dashboardQueries(), ...ruleQueries()], exported).labels).toEqual([]);
  });

  it('would catch a metric nobody exports (the check can fail)', () => {
    const bogus: SourcedQuery = {
      source: 'bogus rule',
      expr: 'sum by (app) (rate(no_such_metric_total{job="svc-webhooks"}[5m])) / sum(rate(http_requests_total[5m]))',
    };
    expect(unknownNames([bogus], exported)).toEqual({
      metrics: ['bogus rule: no_such_metric_total'],
      labels: [],
    });
    // a histogram's base name is no series either: only _bucket, _sum and _count are
    expect(
      unknownNames(
        [{ source: 'typo', expr: 'rate(http_request_duration_seconds{status="500"}[5m])' }],
        exported,
      ),
    ).toEqual({
      metrics: ['typo: http_request_duration_seconds'],
      labels: ['typo: status'],
    });
  });

  it('reports a query it cannot parse, with its source, the query and the position', () => {
    const broken = [...dashboardQueries(), ...ruleQueries()].map((query) =>
      query.source.endsWith('SvcWebhooksAppDown')
        ? { ...query, expr: query.expr.replace('} == 0', ' == 0') }
        : query,
    );
    expect(() => unknownNames(broken, exported)).toThrow(
      'prometheus-rules.yaml SvcWebhooksAppDown: PromQL syntax error at offset 22: up{job="svc-webhooks" ⚠== 0',
    );
  });
});

describe("the dashboard's Dependencies and consumer row", () => {
  /** Metric names the queries of one row's panels use (the panels between it and the next row). */
  function metricsOfRow(title: string): string[] {
    const panels: any[] = dashboard().panels;
    const start = panels.findIndex((panel) => panel.type === 'row' && panel.title === title);
    expect(start).toBeGreaterThanOrEqual(0);
    const end = panels.findIndex((panel, index) => index > start && panel.type === 'row');
    return [
      ...new Set(
        panels
          .slice(start + 1, end < 0 ? undefined : end)
          .flatMap((panel) => panel.targets ?? [])
          .flatMap((target: { expr: string }) => namesInQuery(target.expr).metrics),
      ),
    ].sort();
  }

  it('draws every build, pool, NATS, consumer and readiness metric the apps export', () => {
    expect(metricsOfRow('Dependencies and consumer')).toEqual([
      'svc_build_info',
      'svc_database_pool_connections',
      'svc_database_pool_max_connections',
      'svc_database_pool_waiting_clients',
      'svc_delivery_consumer_ack_pending_messages',
      'svc_delivery_consumer_pending_messages',
      'svc_delivery_consumer_redelivered_messages',
      'svc_nats_connected',
      'svc_nats_disconnects_total',
      'svc_nats_reconnects_total',
      'svc_readiness_check_ok',
    ]);
  });

  it('no two panels of the dashboard overlap or share an id', () => {
    const owner = new Map<string, string>();
    const overlaps: string[] = [];
    for (const panel of dashboard().panels) {
      const { x, y, w, h } = panel.gridPos;
      for (let row = y; row < y + h; row++) {
        for (let column = x; column < x + w; column++) {
          const cell = `${column},${row}`;
          const taken = owner.get(cell);
          if (taken) overlaps.push(`"${panel.title}" over "${taken}" at ${cell}`);
          owner.set(cell, panel.title);
        }
      }
    }
    expect(overlaps).toEqual([]);
    const ids = dashboard().panels.map((panel: { id: number }) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
