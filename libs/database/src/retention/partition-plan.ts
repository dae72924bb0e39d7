/**
 * Which time partitions of a delivery-data table to create and which to drop (ADR 0023). Pure:
 * the maintenance job reads the table's partitions, asks this plan, and carries it out.
 *
 * A partition holds the rows whose retention key (the creation time of their delivery, or of the
 * rejection; ADR 0023) falls in [from, to). Partitions are created ahead of time, aligned to their
 * width from the Unix epoch, and dropped whole once everything in them has outlived retention.
 */
export interface PartitionRange {
  from: Date;
  to: Date;
}

export interface PartitionPolicy {
  /** How much time one partition covers. */
  widthMs: number;
  /** How long delivery data is kept after its delivery was created. */
  retentionMs: number;
  /** Partitions kept ready beyond the current one, so that inserts never meet a missing one. */
  aheadPartitions: number;
  /**
   * Widths kept past the cutoff: stored bodies outlive the deliveries that read them by one, since
   * a body may be stored just before the boundary its deliveries' keys fall after.
   */
  graceWidths: number;
}

export interface PartitionPlan {
  create: PartitionRange[];
  drop: PartitionRange[];
}

const alignDown = (time: number, width: number) => Math.floor(time / width) * width;

export function planPartitions(
  existing: readonly PartitionRange[],
  now: Date,
  policy: PartitionPolicy,
): PartitionPlan {
  const { widthMs, retentionMs, aheadPartitions, graceWidths } = policy;
  if (!(widthMs > 0) || !(retentionMs > 0) || aheadPartitions < 0 || graceWidths < 0) {
    throw new RangeError('partition width and retention must be positive');
  }
  const cutoff = now.getTime() - retentionMs - graceWidths * widthMs;
  const drop = existing.filter((range) => range.to.getTime() <= cutoff);
  const lastEnd = Math.max(...existing.map((range) => range.to.getTime()), -Infinity);
  // Nothing older than the cutoff is created again; a gap since the last partition is filled,
  // since records held through an outage still carry keys from before it.
  const earliest = alignDown(Math.max(cutoff, now.getTime() - retentionMs), widthMs);
  const end = alignDown(now.getTime(), widthMs) + (aheadPartitions + 1) * widthMs;
  const create: PartitionRange[] = [];
  let start = Number.isFinite(lastEnd)
    ? Math.max(lastEnd, earliest)
    : alignDown(now.getTime(), widthMs);
  while (start < end) {
    // The first may be shorter: it runs from an unaligned end (the legacy partition's) to the
    // next boundary.
    const to = alignDown(start, widthMs) + widthMs;
    create.push({ from: new Date(start), to: new Date(to) });
    start = to;
  }
  return { create, drop };
}

/** `events_p20261125t000000`: the table and the partition's start, UTC to the second. */
export function partitionName(table: string, range: PartitionRange): string {
  const stamp = range.from
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replace(/[-:]/g, '')
    .toLowerCase();
  return `${table}_p${stamp}`;
}
