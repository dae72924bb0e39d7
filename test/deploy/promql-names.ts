/**
 * Just enough of PromQL and of the Prometheus text format to answer one question: which metric
 * and label names does a query use, and does some app export them? Not a PromQL parser: it
 * tokenizes, drops what cannot be a metric name (strings, label matchers, `by (...)` lists,
 * ranges, numbers and durations, functions, keywords, Grafana variables), and keeps the rest.
 */

export interface QueryNames {
  metrics: string[];
  labels: string[];
}

type Token =
  | { kind: 'ident'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'variable'; text: string }
  | { kind: 'range'; text: string }
  | { kind: 'punct'; text: string };

/** Keywords and binary operators spelled as words; none of them is ever a metric name. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'atan2',
  'bool',
  'offset',
  'start',
  'end',
  'inf',
  'nan',
]);

/** Modifiers whose parenthesised list holds label names, not expressions. */
const LABEL_LIST_MODIFIERS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

const IDENT_START = /[a-zA-Z_:]/;
const IDENT_PART = /[a-zA-Z0-9_:]/;
const DIGIT = /[0-9]/;

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${i} of PromQL expression: ${expr}`);
  };
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '#') {
      // a comment runs to the end of the line
      while (i < expr.length && expr[i] !== '\n') i += 1;
    } else if (c === '"' || c === "'" || c === '`') {
      const start = i;
      i += 1;
      while (i < expr.length && expr[i] !== c) {
        i += c !== '`' && expr[i] === '\\' ? 2 : 1;
      }
      if (i >= expr.length) fail('unterminated string');
      i += 1;
      tokens.push({ kind: 'string', text: expr.slice(start + 1, i - 1) });
    } else if (c === '$') {
      // Grafana variables: $name, ${name}, ${name:format}
      const start = i;
      i += 1;
      if (expr[i] === '{') {
        const close = expr.indexOf('}', i);
        if (close < 0) fail('unterminated ${...} variable');
        i = close + 1;
      } else {
        while (i < expr.length && /\w/.test(expr[i])) i += 1;
      }
      tokens.push({ kind: 'variable', text: expr.slice(start, i) });
    } else if (c === '[') {
      // a range or subquery window: [5m], [1h:30s], [$__rate_interval]; never nested
      const close = expr.indexOf(']', i);
      if (close < 0) fail('unterminated [...] range');
      tokens.push({ kind: 'range', text: expr.slice(i + 1, close) });
      i = close + 1;
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(expr[i + 1] ?? ''))) {
      // numbers, hex, exponents and durations such as 0.99, 1e-3, 0x1f, 5m, 1h30m
      const start = i;
      while (i < expr.length) {
        const d = expr[i];
        const exponentSign =
          (d === '+' || d === '-') && /[eE]/.test(expr[i - 1]) && !/0x/i.test(expr.slice(start));
        if (/[0-9a-zA-Z_.]/.test(d) || exponentSign) i += 1;
        else break;
      }
      tokens.push({ kind: 'number', text: expr.slice(start, i) });
    } else if (IDENT_START.test(c)) {
      const start = i;
      while (i < expr.length && IDENT_PART.test(expr[i])) i += 1;
      tokens.push({ kind: 'ident', text: expr.slice(start, i) });
    } else if (/[{}(),=!~<>+\-*/%^@]/.test(c)) {
      tokens.push({ kind: 'punct', text: c });
      i += 1;
    } else {
      fail(`unexpected character ${JSON.stringify(c)}`);
    }
  }
  return tokens;
}

/** Metric and label names used by one PromQL expression (Grafana variables allowed). */
export function namesInQuery(expr: string): QueryNames {
  const tokens = tokenize(expr);
  const metrics = new Set<string>();
  const labels = new Set<string>();
  let parens = 0;
  let i = 0;
  const next = (offset = 1): Token | undefined => tokens[i + offset];
  const isPunct = (token: Token | undefined, text: string) =>
    token?.kind === 'punct' && token.text === text;
  const isGroupingKeyword = (token: Token | undefined) =>
    token?.kind === 'ident' && ['by', 'without'].includes(token.text.toLowerCase());

  while (i < tokens.length) {
    const token = tokens[i];
    if (token.kind === 'punct' && token.text === '{') {
      i = readMatchers(tokens, i, metrics, labels, expr);
      continue;
    }
    if (token.kind === 'punct' && token.text === '}') {
      throw new Error(`unbalanced "}" in PromQL expression: ${expr}`);
    }
    if (token.kind === 'punct' && token.text === '(') parens += 1;
    if (token.kind === 'punct' && token.text === ')') {
      parens -= 1;
      if (parens < 0) throw new Error(`unbalanced ")" in PromQL expression: ${expr}`);
    }
    if (token.kind === 'ident') {
      const name = token.text;
      if (LABEL_LIST_MODIFIERS.has(name.toLowerCase())) {
        // by (a, b) | without (...) | on (...) | ignoring (...) | group_left [(...)]
        if (isPunct(next(), '(')) {
          let j = i + 2;
          while (j < tokens.length && !isPunct(tokens[j], ')')) {
            const item = tokens[j];
            if (item.kind === 'ident') labels.add(item.text);
            else if (!isPunct(item, ',') && item.kind !== 'variable') {
              throw new Error(`unexpected "${item.text}" in ${name} (...) of: ${expr}`);
            }
            j += 1;
          }
          if (j >= tokens.length) throw new Error(`unterminated ${name} (...) in: ${expr}`);
          i = j + 1;
          continue;
        }
      } else if (isPunct(next(), '(') || isGroupingKeyword(next())) {
        // a function or an aggregation operator: rate(...), sum(...), sum by (app) (...)
      } else if (!KEYWORDS.has(name.toLowerCase())) {
        metrics.add(name);
      }
    }
    i += 1;
  }
  if (parens !== 0) throw new Error(`unbalanced "(" in PromQL expression: ${expr}`);
  return { metrics: [...metrics].sort(), labels: [...labels].sort() };
}

/** Reads `{...}` from tokens[start]; returns the index after the closing brace. */
function readMatchers(
  tokens: Token[],
  start: number,
  metrics: Set<string>,
  labels: Set<string>,
  expr: string,
): number {
  let i = start + 1;
  while (i < tokens.length) {
    const token = tokens[i];
    if (token.kind === 'punct' && token.text === '}') return i + 1;
    if (token.kind === 'punct' && token.text === ',') {
      i += 1;
      continue;
    }
    if (token.kind !== 'ident' && token.kind !== 'string') {
      throw new Error(`unexpected "${token.text}" in label matchers of: ${expr}`);
    }
    // name op value, where op is one of = != =~ !~
    let j = i + 1;
    let op = '';
    while (j < tokens.length && tokens[j].kind === 'punct' && /[=!~]/.test(tokens[j].text)) {
      op += tokens[j].text;
      j += 1;
    }
    if (op === '') {
      // {"metric.name"} or {"metric.name", label="x"}: the quoted-name form of Prometheus 3
      metrics.add(token.text);
      i += 1;
      continue;
    }
    if (!['=', '!=', '=~', '!~'].includes(op)) {
      throw new Error(`unknown label matcher operator "${op}" in: ${expr}`);
    }
    const value = tokens[j];
    if (value?.kind !== 'string') {
      throw new Error(`label matcher on "${token.text}" needs a quoted value in: ${expr}`);
    }
    if (token.text === '__name__' && op === '=') metrics.add(value.text);
    else if (token.text !== '__name__') labels.add(token.text);
    i = j + 1;
  }
  throw new Error(`unterminated "{" in PromQL expression: ${expr}`);
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
    const names = query.grafanaVariable
      ? namesInGrafanaVariableQuery(query.expr)
      : namesInQuery(query.expr);
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
