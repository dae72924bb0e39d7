import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export const STATS_WINDOWS = ['24h', '7d'] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];

/** The hours each window covers: the current hour and those before it. */
export const WINDOW_HOURS: Record<StatsWindow, number> = { '24h': 24, '7d': 168 };

export class EndpointStatsQuery {
  @ApiPropertyOptional({
    enum: STATS_WINDOWS,
    default: '24h',
    description: 'The last 24 hours (24 buckets) or the last 7 days (168 buckets).',
  })
  @IsOptional()
  @IsIn(STATS_WINDOWS, { message: 'must be 24h or 7d' })
  window?: StatsWindow;
}

/** The attempts of one hour. */
export class StatsBucket {
  @ApiProperty({ format: 'date-time', description: 'Start of the hour (UTC).' }) hour!: string;
  @ApiProperty({ minimum: 0 }) succeeded!: number;
  @ApiProperty({ minimum: 0 }) failed!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Median latency of the attempts of the hour (both outcomes), interpolated; null without attempts.',
  })
  latency_p50_ms!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: '99th percentile latency of the attempts of the hour, interpolated.',
  })
  latency_p99_ms!: number | null;
}

export class StatsTotals {
  @ApiProperty({ minimum: 0 }) attempts!: number;
  @ApiProperty({ minimum: 0 }) succeeded!: number;
  @ApiProperty({ minimum: 0 }) failed!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'succeeded / attempts over the window; null without attempts.',
  })
  success_rate!: number | null;
}

/** The totals of a window from its counts: the one place the success rate is worked out. */
export function totalsOf(succeeded: number, failed: number): StatsTotals {
  const attempts = succeeded + failed;
  return {
    attempts,
    succeeded,
    failed,
    success_rate: attempts === 0 ? null : succeeded / attempts,
  };
}

export class EndpointStatsResponse {
  @ApiProperty({ pattern: '^wh_' }) endpoint_id!: string;
  @ApiProperty({ enum: STATS_WINDOWS }) window!: StatsWindow;
  @ApiProperty({ format: 'date-time', description: 'Start of the first bucket (inclusive).' })
  from!: string;
  @ApiProperty({ format: 'date-time', description: 'End of the last bucket (exclusive).' })
  to!: string;
  @ApiProperty({
    type: [StatsBucket],
    description: 'One bucket per hour, oldest first; the last is the current hour, so far.',
  })
  buckets!: StatsBucket[];
  @ApiProperty({ type: StatsTotals }) totals!: StatsTotals;
}
