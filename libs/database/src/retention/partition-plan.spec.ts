import { partitionName, planPartitions, PartitionPolicy, PartitionRange } from './partition-plan';

const DAY = 24 * 3600_000;
const policy: PartitionPolicy = {
  widthMs: DAY,
  retentionMs: 30 * DAY,
  aheadPartitions: 2,
  graceWidths: 0,
};
const at = (iso: string) => new Date(iso);
const day = (iso: string): PartitionRange => ({
  from: at(`${iso}T00:00:00Z`),
  to: new Date(at(`${iso}T00:00:00Z`).getTime() + DAY),
});
const days = (plan: PartitionRange[]) => plan.map((range) => range.from.toISOString().slice(0, 10));

describe('planPartitions', () => {
  it('given no partitions, when planned, then today and the partitions ahead are created', () => {
    const plan = planPartitions([], at('2026-11-25T13:00:00Z'), policy);
    expect(days(plan.create)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
    expect(plan.drop).toEqual([]);
  });

  it('given partitions up to tomorrow, when planned, then only the missing ones ahead are created', () => {
    const plan = planPartitions(
      [day('2026-11-25'), day('2026-11-26')],
      at('2026-11-25T13:00:00Z'),
      policy,
    );
    expect(days(plan.create)).toEqual(['2026-11-27']);
  });

  it('given every partition ready, when planned again, then nothing changes (idempotent)', () => {
    const existing = [day('2026-11-25'), day('2026-11-26'), day('2026-11-27')];
    expect(planPartitions(existing, at('2026-11-25T23:59:59Z'), policy)).toEqual({
      create: [],
      drop: [],
    });
  });

  it('given partitions older than retention, when planned, then those wholly past the cutoff are dropped', () => {
    const existing = [day('2026-10-25'), day('2026-10-26'), day('2026-10-27'), day('2026-11-25')];
    const plan = planPartitions(existing, at('2026-11-26T12:00:00Z'), policy);
    // cutoff 2026-10-27T12:00: the 26th ends at the 27th 00:00 (dropped); the 27th still holds
    // deliveries created after the cutoff.
    expect(days(plan.drop)).toEqual(['2026-10-25', '2026-10-26']);
  });

  it('given a grace width, when planned, then partitions are kept that much longer', () => {
    const existing = [day('2026-10-25'), day('2026-10-26')];
    const plan = planPartitions(existing, at('2026-11-26T12:00:00Z'), {
      ...policy,
      graceWidths: 1,
    });
    expect(days(plan.drop)).toEqual(['2026-10-25']);
  });

  it('given a gap since the last partition (an outage), when planned, then the gap within retention is filled', () => {
    const plan = planPartitions([day('2026-11-20')], at('2026-11-23T08:00:00Z'), policy);
    expect(days(plan.create)).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
    ]);
  });

  it('given a legacy partition ending between boundaries, when planned, then the first partition runs to the next boundary', () => {
    const legacy = { from: at('1970-01-01T00:00:00Z'), to: at('2026-11-25T09:30:00Z') };
    const plan = planPartitions([legacy], at('2026-11-25T09:31:00Z'), policy);
    expect(plan.create[0]).toEqual({
      from: at('2026-11-25T09:30:00Z'),
      to: at('2026-11-26T00:00:00Z'),
    });
    expect(days(plan.create.slice(1))).toEqual(['2026-11-26', '2026-11-27']);
  });

  it('given minute-wide partitions (the storage benchmark), when an hour passes, then the hour-old ones go', () => {
    const minute = 60_000;
    const short = { widthMs: minute, retentionMs: 5 * minute, aheadPartitions: 2, graceWidths: 1 };
    const start = at('2026-11-25T10:00:00Z');
    const first = planPartitions([], start, short);
    const later = planPartitions(first.create, new Date(start.getTime() + 60 * minute), short);
    expect(later.drop).toEqual(first.create);
    expect(later.create).toHaveLength(8); // the gap within retention (five), the current one, two ahead
  });

  it('refuses a width or retention that is not positive', () => {
    expect(() => planPartitions([], at('2026-11-25T00:00:00Z'), { ...policy, widthMs: 0 })).toThrow(
      RangeError,
    );
  });
});

describe('partitionName', () => {
  it('names a partition by its table and UTC start', () => {
    expect(partitionName('events', day('2026-11-25'))).toBe('events_p20261125t000000');
  });
});
