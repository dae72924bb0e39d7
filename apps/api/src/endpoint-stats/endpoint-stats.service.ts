import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/identity';
import { DataSource } from 'typeorm';
import { requireVisibleEndpoint } from '../webhooks/webhook-endpoints.service';
import {
  EndpointStatsResponse,
  StatsBucket,
  StatsWindow,
  totalsOf,
  WINDOW_HOURS,
} from './endpoint-stats.dto';

const HOUR_MS = 3_600_000;

/**
 * The attempts of one endpoint per hour, in one statement: a range of
 * delivery_attempts_endpoint_time_idx (endpoint_id, attempted_at) in each partition, grouped by
 * hour, joined to the series of hours so that an hour without attempts is a bucket of zeros.
 * Its cost follows the attempts of the window, never the endpoint's or the tenant's history.
 */
export const ENDPOINT_STATS_SQL = `
  SELECT bucket.hour,
         coalesce(stats.succeeded, 0)::int AS succeeded,
         coalesce(stats.failed, 0)::int AS failed,
         stats.p50,
         stats.p99
    FROM generate_series($2::timestamptz, $3::timestamptz - interval '1 hour', interval '1 hour')
           AS bucket(hour)
    LEFT JOIN (
      SELECT date_bin('1 hour', attempted_at, $2::timestamptz) AS hour,
             count(*) FILTER (WHERE succeeded) AS succeeded,
             count(*) FILTER (WHERE NOT succeeded) AS failed,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
        FROM delivery_attempts
       WHERE endpoint_id = $1 AND attempted_at >= $2::timestamptz AND attempted_at < $3::timestamptz
       GROUP BY 1
    ) stats ON stats.hour = bucket.hour
   ORDER BY bucket.hour`;

interface StatsRow {
  hour: Date;
  succeeded: number;
  failed: number;
  p50: number | null;
  p99: number | null;
}

/** Hundredths of a millisecond at most: percentile_cont interpolates in double precision. */
const ms = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);

/** The window ending with the current hour: [from, to), whole hours in UTC. */
export function windowOf(window: StatsWindow, now: Date): { from: Date; to: Date } {
  const to = new Date((Math.floor(now.getTime() / HOUR_MS) + 1) * HOUR_MS);
  return { from: new Date(to.getTime() - WINDOW_HOURS[window] * HOUR_MS), to };
}

@Injectable()
export class EndpointStatsService {
  constructor(private readonly dataSource: DataSource) {}

  async stats(
    principal: Principal,
    endpointId: string,
    window: StatsWindow,
    now = new Date(),
  ): Promise<EndpointStatsResponse> {
    // The same check as GET /v1/webhooks/{id}: the caller's tenant and environment.
    await requireVisibleEndpoint(this.dataSource, principal, endpointId);
    const { from, to } = windowOf(window, now);
    const rows = await this.dataSource.query<StatsRow[]>(ENDPOINT_STATS_SQL, [
      endpointId,
      from,
      to,
    ]);
    const buckets: StatsBucket[] = rows.map((row) => ({
      hour: new Date(row.hour).toISOString(),
      succeeded: row.succeeded,
      failed: row.failed,
      latency_p50_ms: ms(row.p50),
      latency_p99_ms: ms(row.p99),
    }));
    const succeeded = buckets.reduce((sum, bucket) => sum + bucket.succeeded, 0);
    const failed = buckets.reduce((sum, bucket) => sum + bucket.failed, 0);
    return {
      endpoint_id: endpointId,
      window,
      from: from.toISOString(),
      to: to.toISOString(),
      buckets,
      totals: totalsOf(succeeded, failed),
    };
  }
}
