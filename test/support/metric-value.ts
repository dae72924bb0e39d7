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
  const text = (await http(managementUrl, 'GET', '/metrics')).text;
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${metric} `) || l.startsWith(`${metric}{`)) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}
