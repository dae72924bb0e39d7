/**
 * `promtool check metrics` without promtool (it cannot be installed here): a strict reader of the
 * Prometheus text exposition format 0.0.4 and the lint rules promtool applies to what it reads
 * (client_golang's promlint), with promtool's wording, plus two of our own: every family has a
 * TYPE line, and names are snake_case throughout (promlint only refuses camelCase).
 *
 * The npm package parse-prometheus-text-format was considered and not used: it folds every
 * labelled series of a histogram into one, accepts any metric name and value, and reports a
 * missing HELP or TYPE only as empty defaults, so a lint on top of it would miss what it hides.
 */

export interface Sample {
  name: string;
  labels: [name: string, value: string][];
  value: string;
  line: number;
}

export interface MetricFamily {
  name: string;
  type?: string;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SNAKE_CASE = /^[a-z_][a-z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
const TIMESTAMP = /^-?\d+$/;

/** Reads a scrape into metric families; a line that breaks the format is an error, as in promtool. */
export function parseTextExposition(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  /** The family a sample belongs to: a histogram's _bucket, _sum, _count; a summary's _sum, _count. */
  const familyOf = (name: string): MetricFamily => {
    const suffix = /_(bucket|sum|count)$/.exec(name);
    if (suffix) {
      const base = families.get(name.slice(0, -suffix[0].length));
      if (base?.type === 'histogram' || (base?.type === 'summary' && suffix[1] !== 'bucket')) {
        return base;
      }
    }
    return family(name);
  };

  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const fail = (problem: string): never => {
      throw new Error(`text format parsing error in line ${line}: ${problem}`);
    };
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const [, keyword, name, rest] = /^#\s*(\S*)(?:\s+(\S+))?(?:\s(.*))?$/.exec(raw) ?? [];
      if (keyword !== 'HELP' && keyword !== 'TYPE') return; // a comment
      if (!name || !METRIC_NAME.test(name)) fail(`invalid metric name in ${keyword} line`);
      const target = family(name);
      if (keyword === 'HELP') {
        if (target.help !== undefined) fail(`second HELP line for metric name "${name}"`);
        target.help = (rest ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      } else {
        const type = (rest ?? '').trim();
        if (target.type !== undefined || target.samples.length > 0) {
          fail(`second TYPE line for metric name "${name}", or TYPE reported after samples`);
        }
        if (!TYPES.has(type)) fail(`unknown metric type "${type}"`);
        target.type = type;
      }
      return;
    }
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{)?/.exec(raw) ?? fail('invalid metric name');
    const name = head[1];
    const labels: [string, string][] = [];
    let at = head[0].length;
    if (head[2]) {
      const pair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\\n]|\\[\\"n])*)"\s*/y;
      const close = /\s*\}/y;
      const closes = () => {
        close.lastIndex = at;
        if (!close.test(raw)) return false;
        at = close.lastIndex;
        return true;
      };
      while (!closes()) {
        pair.lastIndex = at;
        const [, label, value] = pair.exec(raw) ?? fail(`invalid label in "${raw}"`);
        at = pair.lastIndex;
        if (label.startsWith('__')) fail(`label name "${label}" is reserved`);
        if (labels.some(([existing]) => existing === label)) {
          fail(`duplicate label name "${label}"`);
        }
        labels.push([label, value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))]);
        if (raw[at] === ',') at += 1;
        else if (!closes()) fail(`expected "," or "}" in "${raw}"`);
        else break;
      }
    }
    const [value, timestamp, ...extra] = raw.slice(at).trim().split(/\s+/);
    if (!value || !FLOAT.test(value)) fail(`expected float as value, got "${value ?? ''}"`);
    if ((timestamp !== undefined && !TIMESTAMP.test(timestamp)) || extra.length > 0) {
      fail(`expected integer as timestamp, got "${[timestamp, ...extra].join(' ')}"`);
    }
    const owner = familyOf(name);
    if (owner.type === 'histogram' && name === `${owner.name}_bucket`) {
      if (!labels.some(([label]) => label === 'le')) fail(`bucket of "${owner.name}" without "le"`);
    }
    if (owner.type === 'histogram' && name === owner.name) {
      fail(`histogram "${name}" sample without a _bucket, _sum or _count suffix`);
    }
    owner.samples.push({ name, labels, value, line });
  });
  return [...families.values()];
}

/** promlint's units: a name part naming a unit, and the base unit it should be in. */
const UNITS: Record<string, string> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const UNIT_PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];
const UNIT_ABBREVIATIONS = new Set([
  's',
  'ms',
  'us',
  'ns',
  'sec',
  'b',
  'kb',
  'mb',
  'gb',
  'tb',
  'pb',
  'm',
  'h',
  'd',
]);

/** The first unit a metric name names, with its base unit ("milliseconds" -> "seconds"). */
function unitOf(name: string): [unit: string, base: string] | undefined {
  for (const part of name.split('_')) {
    if (UNITS[part]) return [part, UNITS[part]];
    for (const prefix of UNIT_PREFIXES) {
      const rest = part.slice(prefix.length);
      if (part.startsWith(prefix) && UNITS[rest]) return [part, UNITS[rest]];
    }
  }
  return undefined;
}

/** What promtool would report for one family, as "name: problem". */
function familyProblems(family: MetricFamily): string[] {
  const { name } = family;
  const type = family.type ?? 'untyped';
  const problems: string[] = [];
  const report = (problem: string) => problems.push(`${name}: ${problem}`);
  if (!family.help?.trim()) report('no help text');
  if (family.type === undefined) report('no TYPE line (untyped)');
  if (name.includes(':')) report("metric names should not contain ':'");
  if (!SNAKE_CASE.test(name.replace(/:/g, '_'))) {
    report("metric names should be written in 'snake_case' not 'camelCase'");
  }
  const labelNames = new Set(family.samples.flatMap((sample) => sample.labels.map(([l]) => l)));
  for (const label of [...labelNames].sort()) {
    if (!SNAKE_CASE.test(label)) {
      report(`label names should be written in 'snake_case' not 'camelCase' ("${label}")`);
    }
  }
  if (type === 'counter' && !name.endsWith('_total')) {
    report('counter metrics should have "_total" suffix');
  }
  if (type !== 'counter' && name.endsWith('_total')) {
    report('non-counter metrics should not have "_total" suffix');
  }
  if (type !== 'histogram' && name.endsWith('_bucket')) {
    report('non-histogram metrics should not have "_bucket" suffix');
  }
  for (const suffix of ['_count', '_sum']) {
    if (type !== 'histogram' && type !== 'summary' && name.endsWith(suffix)) {
      report(`non-histogram and non-summary metrics should not have "${suffix}" suffix`);
    }
  }
  if (type !== 'histogram' && labelNames.has('le')) {
    report('non-histogram metrics should not have "le" label');
  }
  if (type !== 'summary' && labelNames.has('quantile')) {
    report('non-summary metrics should not have "quantile" label');
  }
  const lower = name.toLowerCase();
  if (type !== 'untyped' && (lower.includes(`_${type}_`) || lower.endsWith(`_${type}`))) {
    report(`metric name should not include type '${type}'`);
  }
  const unit = unitOf(name);
  if (unit && unit[0] !== unit[1]) report(`use base unit "${unit[1]}" instead of "${unit[0]}"`);
  if (lower.split('_').some((part) => UNIT_ABBREVIATIONS.has(part))) {
    report('metric names should not contain abbreviated units');
  }
  const seen = new Set<string>();
  for (const sample of family.samples) {
    const key = JSON.stringify([sample.name, [...sample.labels].sort()]);
    if (seen.has(key)) report(`metric not unique (line ${sample.line})`);
    seen.add(key);
  }
  return problems;
}

/**
 * Every problem `promtool check metrics` (and the two rules above) would report for a scrape;
 * empty when it lints cleanly. A syntax error is one problem, like promtool's parse error.
 */
export function lintExposition(text: string): string[] {
  let families: MetricFamily[];
  try {
    families = parseTextExposition(text);
  } catch (error) {
    return [(error as Error).message];
  }
  return families.flatMap(familyProblems);
}
