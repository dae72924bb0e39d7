import { namesInGrafanaVariableQuery, namesInQuery } from './promql-names';

/**
 * The PromQL reader the monitoring checks rely on (promql-names.ts): which metric and label names
 * a query of the dashboard or the alert rules uses, through Prometheus's own grammar.
 */
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
