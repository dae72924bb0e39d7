import { ApiProperty } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { StatsTotals, totalsOf } from './endpoint-stats.dto';
import { windowOf } from './endpoint-stats.service';

/**
 * The health of a page of endpoints in one statement, for `GET /v1/webhooks?include=health`: per
 * endpoint, its attempts over the stats route's 24-hour window (an index range of
 * delivery_attempts_endpoint_time_idx, index-only) and its latest attempt (the same index read
 * backwards, one entry per partition). Its cost follows the page's endpoints and their last 24
 * hours, never their history, and saves the console two requests per row.
 */
export const ENDPOINT_HEALTH_SQL = `
  SELECT endpoint.id AS endpoint_id,
         window_attempts.attempts,
         window_attempts.succeeded,
         latest.attempted_at AS last_attempt_at,
         latest.succeeded AS last_attempt_succeeded,
         latest.status_code AS last_attempt_status_code
    FROM unnest($1::text[]) AS endpoint(id)
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS attempts, (count(*) FILTER (WHERE succeeded))::int AS succeeded
        FROM delivery_attempts
       WHERE endpoint_id = endpoint.id AND attempted_at >= $2 AND attempted_at < $3
    ) window_attempts
    LEFT JOIN LATERAL (
      SELECT attempted_at, succeeded, status_code
        FROM delivery_attempts
       WHERE endpoint_id = endpoint.id
       ORDER BY attempted_at DESC
       LIMIT 1
    ) latest ON true`;

interface HealthRow {
  endpoint_id: string;
  attempts: number;
  succeeded: number;
  last_attempt_at: Date | null;
  last_attempt_succeeded: boolean | null;
  last_attempt_status_code: number | null;
}

/**
 * An endpoint's last 24 hours (the stats route's totals of that window) and its latest attempt,
 * as the endpoints list shows them.
 */
export class EndpointHealth extends StatsTotals {
  @ApiProperty({ enum: ['24h'], description: 'The window of the counts, as the stats route.' })
  window!: '24h';
  @ApiProperty({ format: 'date-time', description: 'Start of the window (inclusive).' })
  from!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'The latest attempt, however old; null if none was ever made.',
  })
  last_attempt_at!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['succeeded', 'failed', null] })
  last_attempt_outcome!: 'succeeded' | 'failed' | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'HTTP status of the latest answer, if one came.',
  })
  last_attempt_status_code!: number | null;
}

export function healthOf(row: HealthRow, from: Date): EndpointHealth {
  const lastOutcome =
    row.last_attempt_succeeded === null
      ? null
      : row.last_attempt_succeeded
        ? 'succeeded'
        : 'failed';
  return {
    window: '24h',
    from: from.toISOString(),
    ...totalsOf(row.succeeded, row.attempts - row.succeeded),
    last_attempt_at: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
    last_attempt_outcome: lastOutcome,
    last_attempt_status_code: row.last_attempt_status_code,
  };
}

/**
 * The health of endpoints the caller may already see (the list's page: the caller's tenant and
 * environment), by id.
 */
export async function readEndpointHealth(
  dataSource: DataSource,
  endpointIds: readonly string[],
  now = new Date(),
): Promise<Map<string, EndpointHealth>> {
  if (endpointIds.length === 0) {
    return new Map();
  }
  const { from, to } = windowOf('24h', now);
  const rows = await dataSource.query<HealthRow[]>(ENDPOINT_HEALTH_SQL, [endpointIds, from, to]);
  return new Map(rows.map((row) => [row.endpoint_id, healthOf(row, from)]));
}
