import { lintExposition, parseTextExposition } from './exposition-lint';
import { ScrapedApp, scrapeAfterTraffic, startedApps, startingApps } from './running-apps';

/**
 * `promtool check metrics` for every app, without promtool (exposition-lint.ts): the three apps
 * started as the monitoring test starts them, each /metrics read strictly and linted by
 * promtool's rules: counters end in _total and nothing else does, no _count, _sum or _bucket
 * outside histograms and summaries, base units, snake_case names, a HELP and a TYPE for every
 * metric, no duplicate series.
 */
describe('every app exposes metrics that lint cleanly (promtool check metrics)', () => {
  let apps: ScrapedApp[] = [];
  const scrapes = new Map<string, string>();

  beforeAll(async () => {
    const started = await Promise.allSettled(startingApps());
    apps = startedApps(started);
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    for (const app of apps) scrapes.set(app.name, await scrapeAfterTraffic(app));
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it.each(['api', 'auth', 'delivery'])('%s', (name) => {
    const text = scrapes.get(name)!;
    const families = parseTextExposition(text);
    expect(families.length).toBeGreaterThan(20);
    expect(families.map((family) => family.name)).toEqual(
      expect.arrayContaining([
        'http_requests_total',
        'http_request_duration_seconds',
        'svc_build_info',
        'svc_database_pool_connections',
        'svc_nats_connected',
        'svc_readiness_check_ok',
      ]),
    );
    expect(lintExposition(text)).toEqual([]);
  });
});

describe('the exposition lint', () => {
  it('reads a clean exposition of every type and finds nothing', () => {
    const clean = [
      '# HELP jobs_total Jobs done.',
      '# TYPE jobs_total counter',
      'jobs_total{queue="a",app="x"} 3',
      'jobs_total{queue="b"} 0 1700000000000',
      '# HELP queue_depth Jobs waiting.',
      '# TYPE queue_depth gauge',
      'queue_depth NaN',
      '# HELP job_duration_seconds Time per job.',
      '# TYPE job_duration_seconds histogram',
      'job_duration_seconds_bucket{le="0.5"} 1',
      'job_duration_seconds_bucket{le="+Inf"} 2',
      'job_duration_seconds_sum 1.5e0',
      'job_duration_seconds_count 2',
      '# HELP rpc_latency_seconds RPC latency.',
      '# TYPE rpc_latency_seconds summary',
      'rpc_latency_seconds{quantile="0.99",path="a \\"b\\" \\\\ c\\n"} +Inf',
      'rpc_latency_seconds_sum 1',
      'rpc_latency_seconds_count 1',
      '# a comment',
      '',
    ].join('\n');
    expect(lintExposition(clean)).toEqual([]);
    expect(
      parseTextExposition(clean).map((family) => [family.name, family.samples.length]),
    ).toEqual([
      ['jobs_total', 2],
      ['queue_depth', 1],
      ['job_duration_seconds', 4],
      ['rpc_latency_seconds', 3],
    ]);
    expect(parseTextExposition(clean)[3].samples[0].labels).toEqual([
      ['quantile', '0.99'],
      ['path', 'a "b" \\ c\n'],
    ]);
  });

  it('reports what promtool reports (the check can fail)', () => {
    const bad = [
      '# HELP requests Requests served.',
      '# TYPE requests counter',
      'requests 1',
      '# TYPE open_connections_total gauge',
      'open_connections_total 3',
      '# HELP request_latency_milliseconds Latency.',
      '# TYPE request_latency_milliseconds histogram',
      'request_latency_milliseconds_bucket{le="+Inf"} 1',
      'request_latency_milliseconds_sum 1',
      'request_latency_milliseconds_count 1',
      '# HELP queue_count Items.',
      '# TYPE queue_count gauge',
      'queue_count{le="1"} 1',
      '# HELP cacheHits_total Hits.',
      '# TYPE cacheHits_total counter',
      'cacheHits_total{cacheName="a"} 1',
      'cacheHits_total{cacheName="a"} 2',
      '# HELP payload_size_kb Payload.',
      '# TYPE payload_size_kb gauge',
      'payload_size_kb 1',
      '# HELP job:errors:rate5m Recorded.',
      '# TYPE job:errors:rate5m gauge',
      'job:errors:rate5m 0',
      '# HELP up_gauge Up.',
      '# TYPE up_gauge gauge',
      'up_gauge 1',
      'untyped_thing 1',
    ].join('\n');
    expect(lintExposition(bad)).toEqual([
      'requests: counter metrics should have "_total" suffix',
      'open_connections_total: no help text',
      'open_connections_total: non-counter metrics should not have "_total" suffix',
      'request_latency_milliseconds: use base unit "seconds" instead of "milliseconds"',
      'queue_count: non-histogram and non-summary metrics should not have "_count" suffix',
      'queue_count: non-histogram metrics should not have "le" label',
      "cacheHits_total: metric names should be written in 'snake_case' not 'camelCase'",
      `cacheHits_total: label names should be written in 'snake_case' not 'camelCase' ("cacheName")`,
      'cacheHits_total: metric not unique (line 17)',
      'payload_size_kb: metric names should not contain abbreviated units',
      "job:errors:rate5m: metric names should not contain ':'",
      "up_gauge: metric name should not include type 'gauge'",
      'untyped_thing: no help text',
      'untyped_thing: no TYPE line (untyped)',
    ]);
  });

  it.each([
    ['# TYPE x counter\n# TYPE x counter', 'line 2: second TYPE line for metric name "x"'],
    ['x_total 1\n# TYPE x_total counter', 'line 2: second TYPE line for metric name "x_total"'],
    ['# HELP x a\n# HELP x b', 'line 2: second HELP line for metric name "x"'],
    ['# TYPE x countr', 'line 1: unknown metric type "countr"'],
    ['x{a="1",a="2"} 1', 'line 1: duplicate label name "a"'],
    ['x{a=1} 1', 'line 1: invalid label in'],
    ['x{a="1" b="2"} 1', 'line 1: expected "," or "}"'],
    ['x{__name__="y"} 1', 'line 1: label name "__name__" is reserved'],
    ['x one', 'line 1: expected float as value, got "one"'],
    ['x 1 soon', 'line 1: expected integer as timestamp, got "soon"'],
    ['9x 1', 'line 1: invalid metric name'],
    ['# TYPE h histogram\nh_bucket 1', 'line 2: bucket of "h" without "le"'],
  ])('refuses a broken exposition: %j', (text, problem) => {
    const [reported, ...others] = lintExposition(text);
    expect(others).toEqual([]);
    expect(reported).toContain(`text format parsing error in ${problem}`);
  });
});
