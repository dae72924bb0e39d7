import { jetstream } from '@nats-io/jetstream';
import { SubjectScheme } from '@svc/contracts';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { http, RunningApp, startApi, startAuth, startDelivery } from '@svc/testing';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';
import {
  Exposition,
  namesInGrafanaVariableQuery,
  namesInQuery,
  parseExposition,
  SourcedQuery,
  unknownNames,
} from './promql-names';

/**
 * deploy/ must only query what the apps really export: this starts the three real apps, scrapes
 * their /metrics, and checks every PromQL expression of the Grafana dashboard and the Prometheus
 * alert rules against what they export, both as freshly started and, for the delivery engine,
 * after real work. It also checks deploy/kubernetes for structure, without kubectl.
 */

const ROOT = resolve(__dirname, '../..');
const DEPLOY = join(ROOT, 'deploy');
const DASHBOARD = join(DEPLOY, 'monitoring/grafana-dashboard.json');
const RULES = join(DEPLOY, 'monitoring/prometheus-rules.yaml');
const KUBERNETES = join(DEPLOY, 'kubernetes');

function dashboardQueries(): SourcedQuery[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  const queries: SourcedQuery[] = [];
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item) => visit(item, where));
    } else if (node !== null && typeof node === 'object') {
      const object = node as Record<string, unknown>;
      const here = typeof object.title === 'string' ? `panel "${object.title}"` : where;
      if (typeof object.expr === 'string') {
        queries.push({ source: `grafana-dashboard.json ${here}`, expr: object.expr });
      }
      Object.entries(object)
        .filter(([key]) => key !== 'templating')
        .forEach(([, value]) => visit(value, here));
    }
  };
  visit(dashboard, 'dashboard');
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query: unknown =
      typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (typeof query === 'string' && query.trim() !== '') {
      queries.push({
        source: `grafana-dashboard.json variable $${variable.name}`,
        expr: query,
        grafanaVariable: true,
      });
    }
  }
  return queries;
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string | number;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function ruleGroups(): { name: string; rules: Rule[] }[] {
  const document = parseYaml(readFileSync(RULES, 'utf8'));
  // a PrometheusRule (spec.groups) or a plain Prometheus rule file (groups)
  return document.spec?.groups ?? document.groups;
}

function ruleQueries(): SourcedQuery[] {
  return ruleGroups().flatMap((group) =>
    group.rules.map((rule) => ({
      source: `prometheus-rules.yaml ${rule.alert ?? rule.record}`,
      expr: String(rule.expr),
    })),
  );
}

function filesUnder(directory: string, pattern: RegExp): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((file) => join(directory, file))
    .filter((file) => pattern.test(file) && statSync(file).isFile())
    .sort();
}

function yamlDocuments(file: string): any[] {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'));
  for (const document of documents) {
    if (document.errors.length > 0) {
      throw new Error(`${relative(ROOT, file)}: ${document.errors.map(String).join('; ')}`);
    }
  }
  return documents.map((document) => document.toJS()).filter((value) => value != null);
}

describe('PromQL name extraction', () => {
  it.each([
    ['up{job="svc-webhooks"} == 0', ['up'], ['job']],
    [
      'histogram_quantile(0.99, sum by (app, le) (rate(http_request_duration_seconds_bucket{app=~"$app", route!~"/healthz|/readyz"}[$__rate_interval])))',
      ['http_request_duration_seconds_bucket'],
      ['app', 'le', 'route'],
    ],
    [
      'sum(rate(a_total{status_code=~"5.."}[5m])) by (namespace) / ignoring(status_code) group_left sum without (pod) (rate(b_total[1h:5m] offset 1h)) > bool 1e-3 and on(app) c',
      ['a_total', 'b_total', 'c'],
      ['app', 'namespace', 'pod', 'status_code'],
    ],
    [
      'SUM BY (app) (x_total) OR vector(0) unless {__name__="y_seconds", kind="a{b}"} # not_me',
      ['x_total', 'y_seconds'],
      ['app', 'kind'],
    ],
    ['label_replace(z, "dst", "$1", "src", "(.*)") * 0x1F + .5', ['z'], []],
    ['absent(up{app="api"}) or absent(up{app="auth"})', ['up'], ['app']],
  ])('%s', (expr, metrics, labels) => {
    expect(namesInQuery(expr)).toEqual({ metrics, labels });
  });

  it('reads the PromQL inside Grafana variable queries', () => {
    expect(namesInGrafanaVariableQuery('label_values(up{job="$job"}, namespace)')).toEqual({
      metrics: ['up'],
      labels: ['job', 'namespace'],
    });
    expect(namesInGrafanaVariableQuery('label_values(pod)')).toEqual({
      metrics: [],
      labels: ['pod'],
    });
  });

  it('refuses what it cannot read rather than guess', () => {
    expect(() => namesInQuery('sum(rate(x[5m])')).toThrow(/syntax error at offset 15: .*\)⚠$/);
    expect(() => namesInQuery('x{a="b"')).toThrow(/syntax error at offset 7: x\{a="b"⚠$/);
    expect(() => namesInQuery('x{a=b}')).toThrow(/syntax error at offset 4: x\{a=⚠b\}$/);
    expect(() => namesInQuery('rate(x[$$bad])')).toThrow(/syntax error at offset 7/);
    expect(() => namesInQuery('foo bar')).toThrow(/syntax error at offset 4: foo ⚠bar$/);
  });

  it('substitutes Grafana variables and reads quoted names', () => {
    expect(
      namesInQuery('sum by (app) (rate(x{a=~"${app:regex}", b="[[b]]"}[${__rate_interval}]))'),
    ).toEqual({ metrics: ['x'], labels: ['a', 'app', 'b'] });
    expect(namesInQuery('x{"quoted.name"="v"} / {"other.metric"} @ $__to')).toEqual({
      metrics: ['other.metric', 'x'],
      labels: ['quoted.name'],
    });
  });
});

describe('deploy/kubernetes structure (no kubectl)', () => {
  const yamlFiles = filesUnder(DEPLOY, /\.ya?ml$/);
  const kustomizations = yamlFiles.filter((file) => /kustomization\.ya?ml$/.test(file));

  it('has a base, a staging and a production overlay', () => {
    for (const directory of ['base', 'overlays/staging', 'overlays/production']) {
      expect(existsSync(join(KUBERNETES, directory, 'kustomization.yaml'))).toBe(true);
    }
  });

  it.each(yamlFiles.map((file) => [relative(ROOT, file), file]))('%s parses', (_, file) => {
    const documents = yamlDocuments(file);
    expect(documents.length).toBeGreaterThan(0);
    for (const document of documents) {
      expect(typeof document.apiVersion).toBe('string');
      expect(typeof document.kind).toBe('string');
    }
  });

  it.each(kustomizations.map((file) => [relative(ROOT, file), file]))(
    '%s lists files that exist',
    (_, file) => {
      const [kustomization] = yamlDocuments(file);
      const directory = dirname(file);
      const references: string[] = [
        ...(kustomization.resources ?? []),
        ...(kustomization.components ?? []),
        ...(kustomization.bases ?? []),
        ...(kustomization.crds ?? []),
        ...(kustomization.patchesStrategicMerge ?? []),
        ...(kustomization.patches ?? []).flatMap((patch: { path?: string }) =>
          patch.path ? [patch.path] : [],
        ),
        ...[
          ...(kustomization.configMapGenerator ?? []),
          ...(kustomization.secretGenerator ?? []),
        ].flatMap((generator: { files?: string[]; envs?: string[] }) => [
          // files entries are "path" or "key=path"
          ...(generator.files ?? []).map((entry) => entry.split('=').pop() as string),
          ...(generator.envs ?? []),
        ]),
      ];
      expect(references.length).toBeGreaterThan(0);
      const missing = references.filter((reference) => {
        const target = resolve(directory, reference);
        if (!existsSync(target)) return true;
        return (
          statSync(target).isDirectory() &&
          !['kustomization.yaml', 'kustomization.yml', 'Kustomization'].some((name) =>
            existsSync(join(target, name)),
          )
        );
      });
      expect(missing).toEqual([]);
    },
  );

  it('uses every manifest under deploy/kubernetes in some kustomization', () => {
    const referenced = new Set<string>();
    for (const file of kustomizations.filter((path) => path.startsWith(KUBERNETES))) {
      const [kustomization] = yamlDocuments(file);
      for (const entry of [
        ...(kustomization.resources ?? []),
        ...(kustomization.patches ?? []).map((patch: { path?: string }) => patch.path),
      ]) {
        if (typeof entry === 'string') referenced.add(resolve(dirname(file), entry));
      }
    }
    const manifests = yamlFiles.filter(
      (file) => file.startsWith(KUBERNETES) && !kustomizations.includes(file),
    );
    expect(manifests.filter((file) => !referenced.has(file)).map((f) => relative(ROOT, f))).toEqual(
      [],
    );
  });

  it('commits no Secret and reads DATABASE_URL and SECRET_ENCRYPTION_KEY from svc-webhooks-secrets', () => {
    const objects = yamlFiles.flatMap(yamlDocuments);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const kustomization of kustomizations.map((file) => yamlDocuments(file)[0])) {
      expect(kustomization.secretGenerator ?? []).toEqual([]);
    }
    const workloads = filesUnder(join(KUBERNETES, 'base'), /\.ya?ml$/)
      .flatMap(yamlDocuments)
      .filter((object) => ['Deployment', 'Job'].includes(object.kind));
    expect(workloads.map((object) => object.metadata.name).sort()).toEqual([
      'svc-webhooks-api',
      'svc-webhooks-auth',
      'svc-webhooks-delivery',
      'svc-webhooks-migrate',
    ]);
    for (const workload of workloads) {
      for (const container of workload.spec.template.spec.containers) {
        const fromSecret = Object.fromEntries(
          (container.env ?? [])
            .filter((variable: any) => variable.valueFrom?.secretKeyRef)
            .map((variable: any) => [variable.name, variable.valueFrom.secretKeyRef.name]),
        );
        expect(fromSecret).toMatchObject({
          DATABASE_URL: 'svc-webhooks-secrets',
          SECRET_ENCRYPTION_KEY: 'svc-webhooks-secrets',
        });
        expect(
          (container.env ?? []).filter((variable: any) => variable.value !== undefined),
        ).toEqual([]);
      }
    }
  });

  it('runs every container hardened, bounded and probed', () => {
    const base = filesUnder(join(KUBERNETES, 'base'), /\.ya?ml$/).flatMap(yamlDocuments);
    const workloads = base.filter((object) => ['Deployment', 'Job'].includes(object.kind));
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      for (const container of pod.containers) {
        const where = `${workload.metadata.name}/${container.name}`;
        expect({ where, image: container.image }).toEqual({ where, image: 'svc-webhooks' });
        expect(container.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
        if (workload.kind === 'Deployment') {
          expect(container.command).toEqual(['node', `dist/apps/${container.name}/src/main.js`]);
          expect(container.livenessProbe.httpGet.path).toBe('/healthz');
          expect(container.readinessProbe.httpGet.path).toBe('/readyz');
          // Probes and scrapes use the management port, which no public Service exposes.
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
            expect(container[probe].httpGet.port).toBe('management');
          }
        } else {
          expect(container.command.slice(0, 3)).toEqual([
            'node',
            'dist/apps/cli/src/main.js',
            'migrate',
          ]);
        }
      }
    }
    for (const service of base.filter((object) => object.kind === 'Service')) {
      const names = service.spec.ports.map((port: any) => port.name);
      expect({ service: service.metadata.name, names }).toEqual({
        service: service.metadata.name,
        names:
          service.metadata.name.endsWith('-management') ||
          service.metadata.name === 'svc-webhooks-delivery'
            ? ['management']
            : ['http'],
      });
    }
    const budgets = base.filter((object) => object.kind === 'PodDisruptionBudget');
    expect(budgets.map((budget) => budget.metadata.name)).toEqual(
      expect.arrayContaining(['svc-webhooks-api', 'svc-webhooks-delivery']),
    );
  });

  it.each(['staging', 'production'])('the %s overlay sets the image tag and NODE_ENV', (name) => {
    const [kustomization] = yamlDocuments(join(KUBERNETES, 'overlays', name, 'kustomization.yaml'));
    expect(kustomization.images).toEqual([
      expect.objectContaining({ name: 'svc-webhooks', newTag: expect.any(String) }),
    ]);
    const config = kustomization.configMapGenerator.find(
      (generator: { name: string }) => generator.name === 'svc-webhooks-config',
    );
    expect(config.literals).toContain('NODE_ENV=production');
    expect(kustomization.replicas.length).toBeGreaterThan(0);
  });
});

/** /readyz once NATS, which the apps connect to in the background, has answered (or 10 s). */
async function readyStatus(baseUrl: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status } = await http(baseUrl, 'GET', '/readyz');
    if (status === 200 || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
 * DELIVERY_MAX_ATTEMPTS=2, which degrades the endpoint) and one message that is not JSON.
 */
const ENGINE_AT_WORK: [metric: string, labels: Record<string, string>, value: number][] = [
  ['svc_delivery_events_received_total', {}, 2],
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
  let apps: Pick<RunningApp, 'name' | 'baseUrl' | 'managementUrl' | 'close'>[] = [];
  let stack: DeliveryStack | undefined;
  let receiver: HttpsReceiver | undefined;
  /** api, auth and a delivery engine, all freshly started. */
  const exported: Exposition = { metrics: new Set(), labels: new Set() };
  const scrapes = new Map<string, string>();
  /** api and auth as above, and a delivery engine after real work (exerciseDeliveryEngine). */
  const exportedAtWork: Exposition = { metrics: new Set(), labels: new Set() };
  let engineAtWork = '';

  beforeAll(async () => {
    const started = await Promise.allSettled([
      startApi(),
      startAuth(),
      startDelivery(),
      startDeliveryStack({ DELIVERY_MAX_ATTEMPTS: '2' }),
      startHttpsReceiver({
        behaviour: (request) => ({ status: request.path === '/failing' ? 500 : 200 }),
      }),
    ]);
    const [api, auth, delivery, deliveryStack, httpsReceiver] = started;
    apps = [
      api.status === 'fulfilled' && { ...api.value, name: 'api' },
      auth.status === 'fulfilled' && auth.value,
      delivery.status === 'fulfilled' && delivery.value,
    ].filter((app) => app !== false);
    stack = deliveryStack.status === 'fulfilled' ? deliveryStack.value : undefined;
    receiver = httpsReceiver.status === 'fulfilled' ? httpsReceiver.value : undefined;
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;

    for (const app of apps) {
      // real traffic, so the HTTP counter and histogram have series to show; probes and scrapes
      // go to the management port (ADR 0019), which counts them under their own routes
      expect((await http(app.managementUrl, 'GET', '/healthz')).status).toBe(200);
      expect(await readyStatus(app.managementUrl)).toBe(200);
      expect((await http(app.baseUrl, 'GET', '/no-such-route')).status).toBe(404);
      const scrape = await http(app.managementUrl, 'GET', '/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
      scrapes.set(app.name, scrape.text);
      parseExposition(scrape.text, exported);
      if (app.name !== 'delivery') parseExposition(scrape.text, exportedAtWork);
    }
    engineAtWork = await exerciseDeliveryEngine(stack!, receiver!);
    parseExposition(engineAtWork, exportedAtWork);
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
  });

  it('every metric and label name they use is exported by the delivery engine at work too', () => {
    expect(unknownNames([...dashboardQueries(), ...ruleQueries()], exportedAtWork)).toEqual({
      metrics: [],
      labels: [],
    });
  });

  it('every metric name in the dashboard and the alert rules is exported by some app', () => {
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

describe('alert rules', () => {
  it('page with a severity, a summary, a description and a runbook note', () => {
    const alerts = ruleGroups().flatMap((group) => group.rules.filter((rule) => rule.alert));
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'SvcWebhooksApiHigh5xxRatio',
        'SvcWebhooksApiLatencyP99High',
        'SvcWebhooksAppDown',
        'SvcWebhooksDeliveriesAbandoned',
        'SvcWebhooksDeliveryDeadLetters',
        'SvcWebhooksDeliveryDueBacklogHigh',
        'SvcWebhooksDeliveryFailureRatioHigh',
        'SvcWebhooksDeliveryLatencyP99High',
        'SvcWebhooksEventLoopLagHigh',
      ]),
    );
    for (const rule of alerts) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({
        alert: rule.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect(rule.for).toMatch(/^\d+[smh]$/);
      for (const key of ['summary', 'description', 'runbook']) {
        expect({ alert: rule.alert, key, empty: !rule.annotations?.[key]?.trim() }).toEqual({
          alert: rule.alert,
          key,
          empty: false,
        });
      }
    }
  });
});
