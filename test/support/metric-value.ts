import { http } from './http-client';

/**
 * A sample's value from an app's /metrics (on its management URL, `RunningApp.managementUrl`):
 * the first line of `metric` (with or without labels) whose text includes `labels`; 0 when there
 * is none yet.
 */
export async function metricValue(
  managementUrl: string,
  metric: string,
  labels = '',
): Promise<number> {
  return sampleValue((await http(managementUrl, 'GET', '/metrics')).text, metric, labels);
}

/** The same, read from an exposition's text (a registry's `metrics()`). */
export function sampleValue(exposition: string, metric: string, labels = ''): number {
  const line = exposition
    .split('\n')
    .find((l) => (l.startsWith(`${metric} `) || l.startsWith(`${metric}{`)) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}
