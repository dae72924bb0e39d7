import { dropPartition, listPartitions, maintainPartitions, openDataSource } from '@svc/database';
import { Client } from 'pg';
import { createTenantWithKey } from './bench-stack';

/**
 * The data `npm run bench:console` opens the console on: tenants with a key each, their endpoints
 * registered through the API (secrets are encrypted at rest: the API does it as for anyone), and
 * delivery history written straight into the projections the console reads (`deliveries`,
 * `delivery_attempts`), in daily partitions as an engine running for a week would have left them.
 */

/** As the product's defaults (ADR 0023): 30 days kept, one partition a day. */
const RETENTION = { retentionMs: 30 * 86_400_000, partitionWidthMs: 86_400_000 };
const DAY_MS = 86_400_000;

export interface SeededTenant {
  label: string;
  tenantId: string;
  key: string;
  endpoints: number;
  attempts: number;
}

/**
 * A fresh database's `_legacy` partitions end at the migration's moment, so a week of history
 * would all land in them. They are empty: dropped, then the product's own maintenance lays out
 * daily partitions from `days` + 1 days ago (as it did then) and up to today and the days ahead.
 */
export async function prepareDailyPartitions(databaseUrl: string, days: number): Promise<string[]> {
  // Two connections: this runner, and the one maintainPartitions takes.
  const dataSource = await openDataSource({ url: databaseUrl, poolSize: 2 });
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    for (const table of ['events', 'deliveries', 'delivery_attempts', 'inbound_events']) {
      for (const partition of await listPartitions(runner.manager, table)) {
        if (partition.name.endsWith('_legacy')) {
          await dropPartition(runner, table, partition.name);
        }
      }
    }
    const start = new Date(Date.now() - (days + 1) * DAY_MS);
    await maintainPartitions(dataSource, RETENTION, start, { drop: false });
    await maintainPartitions(dataSource, RETENTION, new Date(), { drop: false });
    return (await listPartitions(runner.manager, 'delivery_attempts')).map((p) => p.name);
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

/**
 * `count` endpoints of one tenant through POST /v1/webhooks, `concurrency` at a time. The URLs
 * are under the reserved `.example` domain: nothing is ever delivered to them.
 */
export async function registerManyEndpoints(
  apiUrl: string,
  tenant: { label: string; key: string },
  count: number,
  concurrency: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      const response = await fetch(`${apiUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `https://hooks.${tenant.label}.example/svc/${String(index).padStart(4, '0')}`,
          events: index % 3 === 0 ? ['alert.*', 'incident.*'] : ['alert.*'],
          secret: `bench-console-secret-${index}-${tenant.label}`,
          rate_limit_per_second: index % 4 === 0 ? 50 : null,
        }),
      });
      const text = await response.text();
      if (response.status !== 201) {
        throw new Error(
          `registering endpoint ${index} of ${tenant.label}: ${response.status} ${text}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** A lowercase ULID whose time is `t` (as the product's ids: prefix, time, 80 random bits). */
const ULID_FUNCTION = `
  CREATE FUNCTION pg_temp.bench_ulid(t timestamptz) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT (SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz',
                     ((floor(extract(epoch FROM t) * 1000)::bigint >> (5 * (9 - i))) & 31)::int + 1, 1),
                   '' ORDER BY i) FROM generate_series(0, 9) i)
        || (SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz',
                     floor(random() * 32)::int + 1, 1), '') FROM generate_series(1, 16))
  $$`;

/**
 * One row per delivery: $2 deliveries over the tenant's endpoints within the last $4 days; the
 * first $3 of them were retried (a first attempt failed), and go to one endpoint in ten, so a
 * tenth of the endpoints fail often while the rest succeed at once. A retried delivery's second
 * attempt, two minutes later, succeeds three times in four; otherwise it is abandoned.
 */
const STAGE_DELIVERIES = `
  CREATE TEMP TABLE bench_deliveries AS
  WITH endpoint AS (
    SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n
      FROM webhook_endpoints WHERE tenant_id = $1
  ), staged AS (
    SELECT d, d <= $3::int AS retried, random() < 0.25 AS abandoned,
           now() - interval '3 minutes'
             - random() * ($4::int * interval '1 day' - interval '3 minutes') AS created_at
      FROM generate_series(1, $2::int) d
  )
  SELECT s.d, s.retried, s.retried AND s.abandoned AS abandoned, s.created_at,
         'del_' || pg_temp.bench_ulid(s.created_at) AS id,
         'evt_' || pg_temp.bench_ulid(s.created_at) AS event_id,
         (ARRAY['alert.created', 'alert.severity_changed', 'incident.created'])[1 + s.d % 3] AS event_type,
         e.id AS endpoint_id
    FROM staged s
    JOIN endpoint e ON e.n = CASE
      WHEN s.retried THEN ((s.d % greatest(ceil($5::int / 10.0)::int, 1)) * 10) % $5::int
      ELSE s.d % $5::int END`;

const INSERT_DELIVERIES = `
  INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                          run_attempts, last_attempt_at, next_attempt_at, created_at, completed_at,
                          version, retention_key)
  SELECT id, event_id, endpoint_id, $1, event_type,
         CASE WHEN abandoned THEN 'abandoned' ELSE 'succeeded' END,
         CASE WHEN retried THEN 2 ELSE 1 END, CASE WHEN retried THEN 2 ELSE 1 END,
         created_at + CASE WHEN retried THEN interval '2 minutes' ELSE interval '0' END, NULL,
         created_at, created_at + CASE WHEN retried THEN interval '2 minutes' ELSE interval '0' END
           + interval '1 second',
         CASE WHEN retried THEN 4 ELSE 2 END, created_at
    FROM bench_deliveries`;

/**
 * The attempts, their log positions in time order after every position already there (the
 * console's "last attempt" is the endpoint's highest position). Latencies: 20 to 400 ms for a
 * success, a failure answers 500 or 503 in up to 2 s, or times out at 10 s, or is refused.
 */
const INSERT_ATTEMPTS = `
  INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id, attempt,
                                 succeeded, status_code, error_kind, error_message, latency_ms,
                                 response_excerpt, attempted_at, retention_key)
  SELECT (SELECT coalesce(max(position), 0) FROM delivery_attempts)
           + row_number() OVER (ORDER BY attempted_at),
         id, $1, endpoint_id, event_id, attempt, succeeded,
         CASE WHEN succeeded THEN 200 WHEN failure < 2 THEN 500 + 3 * failure END,
         CASE WHEN succeeded THEN NULL WHEN failure < 2 THEN 'http_status'
              WHEN failure = 2 THEN 'timeout' ELSE 'connection_refused' END,
         CASE WHEN succeeded THEN NULL WHEN failure < 2 THEN 'answered ' || (500 + 3 * failure)
              WHEN failure = 2 THEN 'no answer within 10000 ms' ELSE 'connect ECONNREFUSED' END,
         CASE WHEN succeeded THEN 20 + floor(random() * 380)::int
              WHEN failure = 2 THEN 10000 WHEN failure = 3 THEN 1 + floor(random() * 5)::int
              ELSE 50 + floor(random() * 1950)::int END,
         CASE WHEN succeeded THEN '{"received":true}' WHEN failure < 2
              THEN '{"error":"upstream unavailable, try again later"}' END,
         attempted_at, created_at
    FROM (
      SELECT s.*, a AS attempt, floor(random() * 4)::int AS failure,
             s.created_at + (a - 1) * interval '2 minutes' AS attempted_at,
             NOT (s.retried AND (a = 1 OR s.abandoned)) AS succeeded
        FROM bench_deliveries s, generate_series(1, CASE WHEN s.retried THEN 2 ELSE 1 END) a
    ) attempt_rows`;

/**
 * `attempts` attempts of one tenant, over its endpoints and the last `days` days: a fifth of
 * them are the failed first attempts of retried deliveries (so deliveries = 4/5 of attempts).
 */
export async function seedHistory(
  databaseUrl: string,
  tenantId: string,
  attempts: number,
  days: number,
): Promise<{ deliveries: number; attempts: number; failed: number }> {
  const retried = Math.floor(attempts / 5);
  const deliveries = attempts - retried;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(ULID_FUNCTION);
    const { rows: endpoints } = await client.query<{ count: string }>(
      'SELECT count(*) FROM webhook_endpoints WHERE tenant_id = $1',
      [tenantId],
    );
    const endpointCount = Number(endpoints[0].count);
    await client.query(STAGE_DELIVERIES, [tenantId, deliveries, retried, days, endpointCount]);
    await client.query(INSERT_DELIVERIES, [tenantId]);
    await client.query(INSERT_ATTEMPTS, [tenantId]);
    await client.query('DROP TABLE bench_deliveries');
    await client.query('COMMIT');
    const { rows } = await client.query<{ attempts: string; failed: string }>(
      `SELECT count(*) AS attempts, count(*) FILTER (WHERE NOT succeeded) AS failed
         FROM delivery_attempts WHERE tenant_id = $1`,
      [tenantId],
    );
    return { deliveries, attempts: Number(rows[0].attempts), failed: Number(rows[0].failed) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** After bulk writes, as autovacuum would do soon after: fresh statistics for the planner. */
export async function analyseHistory(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE deliveries, delivery_attempts, webhook_endpoints');
  } finally {
    await client.end();
  }
}

/** A tenant, its key, its endpoints (through the API) and its history (SQL). */
export async function seedTenant(
  databaseUrl: string,
  apiUrl: string,
  plan: { label: string; endpoints: number; attempts: number; days: number },
  log: (message: string) => void,
): Promise<SeededTenant> {
  const { tenantId, key } = await createTenantWithKey(databaseUrl);
  const registering = Date.now();
  await registerManyEndpoints(apiUrl, { label: plan.label, key }, plan.endpoints, 20);
  const registered = Date.now();
  const history = await seedHistory(databaseUrl, tenantId, plan.attempts, plan.days);
  log(
    `${plan.label}: ${plan.endpoints} endpoints registered in ${((registered - registering) / 1000).toFixed(1)} s; ` +
      `${history.deliveries} deliveries and ${history.attempts} attempts (${history.failed} failed) ` +
      `over ${plan.days} days written in ${((Date.now() - registered) / 1000).toFixed(1)} s`,
  );
  return {
    label: plan.label,
    tenantId,
    key,
    endpoints: plan.endpoints,
    attempts: history.attempts,
  };
}
