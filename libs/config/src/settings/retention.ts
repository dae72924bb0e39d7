import { duration, setting } from '../kinds';
import { section } from '../section';

/**
 * Delivery data (bodies, delivery events, deliveries, attempts) is kept this long after its
 * delivery was created, in partitions this wide, dropped whole (ADR 0023).
 */
export interface RetentionSettings {
  retentionMs: number;
  partitionWidthMs: number;
}

export const retention = section({
  name: 'retention',
  variables: {
    DELIVERY_DATA_RETENTION: setting(
      duration('30d'),
      'how long delivery data (bodies, delivery events, deliveries, attempts) is kept after its delivery was created; then its partition is dropped whole (ADR 0023)',
    ),
    DELIVERY_DATA_PARTITION_WIDTH: setting(
      duration('1d'),
      'the time one partition of delivery data covers (at least `1m`, at most the retention)',
    ),
  },
  check: (values) =>
    values.DELIVERY_DATA_PARTITION_WIDTH < 60_000 ||
    values.DELIVERY_DATA_PARTITION_WIDTH > values.DELIVERY_DATA_RETENTION
      ? ['DELIVERY_DATA_PARTITION_WIDTH: must be at least 1m and at most DELIVERY_DATA_RETENTION']
      : [],
  build: (values): { retention: RetentionSettings } => ({
    retention: {
      retentionMs: values.DELIVERY_DATA_RETENTION,
      partitionWidthMs: values.DELIVERY_DATA_PARTITION_WIDTH,
    },
  }),
});
