import { loadSections } from '../section';
import { retention } from './retention';

describe('retention of delivery data (ADR 0023)', () => {
  it('keeps 30 days in day-wide partitions by default', () => {
    expect(loadSections([retention], {}).retention).toEqual({
      retentionMs: 30 * 86_400_000,
      partitionWidthMs: 86_400_000,
    });
  });

  it('reads a shortened retention (the storage benchmark: minutes)', () => {
    expect(
      loadSections([retention], {
        DELIVERY_DATA_RETENTION: '5m',
        DELIVERY_DATA_PARTITION_WIDTH: '1m',
      }).retention,
    ).toEqual({ retentionMs: 300_000, partitionWidthMs: 60_000 });
  });

  it('refuses partitions wider than retention, or narrower than a minute', () => {
    expect(() =>
      loadSections([retention], {
        DELIVERY_DATA_RETENTION: '1h',
        DELIVERY_DATA_PARTITION_WIDTH: '2h',
      }),
    ).toThrow(/DELIVERY_DATA_PARTITION_WIDTH/);
    expect(() => loadSections([retention], { DELIVERY_DATA_PARTITION_WIDTH: '10s' })).toThrow(
      /DELIVERY_DATA_PARTITION_WIDTH/,
    );
  });
});
