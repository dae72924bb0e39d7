import { parser } from '@prometheus-io/lezer-promql';

/**
 * Which metric and label names does a PromQL query use? Prometheus's own grammar
 * (@prometheus-io/lezer-promql) parses the query; any syntax error throws, with its offset.
 */

export interface QueryNames {
  metrics: string[];
  labels: string[];
}

/**
 * Grafana interpolates its variables before Prometheus sees a query: $__rate_interval and the like
 * become durations ($__interval_ms, $__range_s, $__from... numbers), any other $var, ${var:format}
 * or [[var]] becomes its own name. The dashboard only uses those inside quoted matcher values,
 * where the value does not matter; anywhere else the name is checked like any other.
 */
function substituteGrafanaVariables(query: string): string {
  return query.replace(
    /\$\{([a-zA-Z_]\w*)(?::[^}]*)?\}|\[\[([a-zA-Z_]\w*)(?::[^\]]*)?\]\]|\$([a-zA-Z_]\w*)/g,
    (_, ...groups: (string | undefined)[]) => {
      const name = groups.slice(0, 3).find(Boolean) as string;
      if (/^__(rate_interval|interval|range)$/.test(name)) return '5m';
      return name.startsWith('__') ? '60000' : name;
    },
  );
}

/** The text of a PromQL string literal ("...", '...' or `...`). */
function unquote(literal: string): string {
  const body = literal.slice(1, -1);
  return literal.startsWith('`') ? body : body.replace(/\\(.)/g, '$1');
}

/** Metric and label names used by one PromQL expression (Grafana variables allowed). */
export function namesInQuery(query: string): QueryNames {
  const expr = substituteGrafanaVariables(query);
  const metrics = new Set<string>();
  const labels = new Set<string>();
  const text = (node: { from: number; to: number }) => expr.slice(node.from, node.to);
  parser.parse(expr).iterate({
    enter: ({ node }) => {
      if (node.type.isError) {
        const at = `offset ${node.from}: ${expr.slice(0, node.from)}⚠${expr.slice(node.from)}`;
        throw new Error(`PromQL syntax error at ${at}`);
      }
      const parent = node.parent;
      if (node.name === 'Identifier' && parent?.name === 'VectorSelector') {
        metrics.add(text(node));
      } else if (parent && (node.name === 'LabelName' || node.name === 'QuotedLabelName')) {
        const name = node.name === 'LabelName' ? text(node) : unquote(text(node));
        if (parent.name === 'LabelMatchers') {
          metrics.add(name); // {"metric.name"}: the quoted-name form of Prometheus 3
        } else if (name !== '__name__') {
          labels.add(name); // a matcher, by/without, on/ignoring or group_left/group_right
        } else if (parent.getChild('MatchOp')?.firstChild?.name === 'EqlSingle') {
          metrics.add(unquote(text(parent.getChild('StringLiteral')!)));
        }
      }
    },
  });
  return { metrics: [...metrics].sort(), labels: [...labels].sort() };
}

/**
 * Grafana template-variable queries are not PromQL but wrap it: `label_values(expr, label)`,
 * `label_values(label)`, `query_result(expr)`, `metrics(regex)`, `label_names()`.
 */
export function namesInGrafanaVariableQuery(query: string): QueryNames {
  const text = query.trim();
  const labelValues = /^label_values\(\s*(.*?)\s*\)$/s.exec(text);
  if (labelValues) {
    const args = labelValues[1];
    const lastComma = args.lastIndexOf(',');
    if (lastComma < 0) return { metrics: [], labels: [args] };
    const inner = namesInQuery(args.slice(0, lastComma));
    const label = args.slice(lastComma + 1).trim();
    return { metrics: inner.metrics, labels: [...new Set([...inner.labels, label])].sort() };
  }
  const queryResult = /^query_result\(\s*(.*)\s*\)$/s.exec(text);
  if (queryResult) return namesInQuery(queryResult[1]);
  if (/^(metrics|label_names)\(/.test(text)) return { metrics: [], labels: [] };
  return namesInQuery(text);
}

export interface Exposition {
  /** Every series name a query can select, e.g. a histogram's name_bucket, name_sum, name_count. */
  metrics: Set<string>;
  /** Every label name on any exported series (le included). */
  labels: Set<string>;
}

/** Reads a Prometheus text-format (0.0.4) scrape. */
export function parseExposition(text: string, into?: Exposition): Exposition {
  const result = into ?? { metrics: new Set<string>(), labels: new Set<string>() };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      if (kind === 'histogram') {
        ['_bucket', '_sum', '_count'].forEach((suffix) => result.metrics.add(name + suffix));
        result.labels.add('le');
      } else if (kind === 'summary') {
        [name, `${name}_sum`, `${name}_count`].forEach((series) => result.metrics.add(series));
        result.labels.add('quantile');
      } else {
        result.metrics.add(name);
      }
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    result.metrics.add(sample[1]);
    for (const label of (sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="(?:[^"\\]|\\.)*"/g)) {
      result.labels.add(label[1]);
    }
  }
  return result;
}

export interface SourcedQuery {
  /** Where the query lives, for messages: file and panel or alert. */
  source: string;
  expr: string;
  /** Grafana template-variable query rather than plain PromQL. */
  grafanaVariable?: boolean;
}

/** Metrics Prometheus makes itself for every target; the apps never export them. */
export const SCRAPE_METRICS = new Set(['up']);

/**
 * Labels Prometheus attaches to every target (the scrape configuration of deploy/ sets `job`,
 * Kubernetes service discovery adds namespace, pod, container, service and endpoint).
 */
export const TARGET_LABELS = new Set([
  'job',
  'instance',
  'namespace',
  'pod',
  'container',
  'service',
  'endpoint',
]);

/** Every "source: name" a query uses that no app exports, as metric or as label. */
export function unknownNames(
  queries: SourcedQuery[],
  exported: Exposition,
): { metrics: string[]; labels: string[] } {
  const metrics = new Set<string>();
  const labels = new Set<string>();
  for (const query of queries) {
    let names: QueryNames;
    try {
      names = (query.grafanaVariable ? namesInGrafanaVariableQuery : namesInQuery)(query.expr);
    } catch (error) {
      throw new Error(`${query.source}: ${(error as Error).message}`, { cause: error });
    }
    for (const metric of names.metrics) {
      if (!exported.metrics.has(metric) && !SCRAPE_METRICS.has(metric)) {
        metrics.add(`${query.source}: ${metric}`);
      }
    }
    for (const label of names.labels) {
      if (!exported.labels.has(label) && !TARGET_LABELS.has(label)) {
        labels.add(`${query.source}: ${label}`);
      }
    }
  }
  return { metrics: [...metrics].sort(), labels: [...labels].sort() };
}
