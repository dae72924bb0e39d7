import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { DASHBOARD, RULES } from './deploy-files';
import { SourcedQuery } from './promql-names';

/** The Grafana dashboard and the Prometheus rules of deploy/monitoring, as the tests read them. */

export interface Rule {
  alert?: string;
  record?: string;
  expr: string | number;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function ruleGroups(): { name: string; rules: Rule[] }[] {
  const document = parseYaml(readFileSync(RULES, 'utf8'));
  // a PrometheusRule (spec.groups) or a plain Prometheus rule file (groups)
  return document.spec?.groups ?? document.groups;
}

/** The alerting rules (recording rules left out). */
export function alertRules(): (Rule & { alert: string })[] {
  return ruleGroups().flatMap((group) =>
    group.rules.filter((rule): rule is Rule & { alert: string } => Boolean(rule.alert)),
  );
}

export function ruleQueries(): SourcedQuery[] {
  return ruleGroups().flatMap((group) =>
    group.rules.map((rule) => ({
      source: `prometheus-rules.yaml ${rule.alert ?? rule.record}`,
      expr: String(rule.expr),
    })),
  );
}

export function dashboard(): any {
  return JSON.parse(readFileSync(DASHBOARD, 'utf8'));
}

/** Every PromQL expression of the dashboard, with the panel (or variable) it belongs to. */
export function dashboardQueries(): SourcedQuery[] {
  const json = dashboard();
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
  visit(json, 'dashboard');
  for (const variable of json.templating?.list ?? []) {
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
