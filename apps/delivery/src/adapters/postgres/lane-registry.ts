import { DataSource } from 'typeorm';
import { Lane } from '../../intake/lanes/lane-rules';

/**
 * Serialises lane openings across engines, so that the count of open lanes and the new row are
 * one decision (two engines opening lanes for two tenants at once cannot pass INTAKE_LANES_MAX).
 * The number is issue 19's, next to the migration and partition-maintenance locks.
 */
export const LANE_OPENING_LOCK = 7_301_457_019;

interface LaneRow {
  tenant_id: string;
  consumer_name: string;
  start_seq: string;
  end_seq: string | null;
  closing_since: Date | null;
}

const COLUMNS = 'tenant_id, consumer_name, start_seq, end_seq, closing_since';

function laneOf(row: LaneRow): Lane {
  return {
    tenantId: row.tenant_id,
    consumerName: row.consumer_name,
    startSeq: Number(row.start_seq),
    endSeq: row.end_seq === null ? null : Number(row.end_seq),
    closingSince: row.closing_since,
  };
}

/**
 * The lanes of hot tenants in PostgreSQL (`intake_lanes`, ADR 0032), shared by every engine: one
 * row per tenant, so one lane per tenant however many engines decide at once. Every change is
 * one short transaction; the engines read the whole table every few seconds (it holds at most
 * INTAKE_LANES_MAX rows) and after every change notice.
 */
export class LaneRegistry {
  constructor(private readonly db: DataSource) {}

  async list(): Promise<Lane[]> {
    const rows: LaneRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM intake_lanes ORDER BY tenant_id`,
    );
    return rows.map(laneOf);
  }

  /**
   * Opens a lane for the tenant unless it has one (then that one is returned, `opened: false`) or
   * `maxLanes` are open (null). One statement: `open_intake_lane` (migration 1764000600000) takes
   * the opening lock, so the count and the new row are one decision across engines.
   */
  async open(
    lane: { tenantId: string; consumerName: string; startSeq: number },
    maxLanes: number,
  ): Promise<{ lane: Lane; opened: boolean } | null> {
    const [row]: (LaneRow & { opened: boolean })[] = await this.db.query(
      `SELECT ${COLUMNS}, opened FROM open_intake_lane($1, $2, $3, $4, $5)`,
      [lane.tenantId, lane.consumerName, lane.startSeq, maxLanes, LANE_OPENING_LOCK],
    );
    return row ? { lane: laneOf(row), opened: row.opened } : null;
  }

  /**
   * Begins closing an open lane: it covers the tenant's messages up to `endSeq`, the main intake
   * handles those after it. False when the lane is gone or already closing.
   */
  async markClosing(tenantId: string, endSeq: number): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE intake_lanes SET end_seq = GREATEST($2::bigint, start_seq - 1), closing_since = now()
        WHERE tenant_id = $1 AND closing_since IS NULL`,
      [tenantId, endSeq],
    );
    return affected === 1;
  }

  /**
   * Keeps a closing lane open after all (its tenant is hot again). Safe at any time: a lane never
   * stops handling its messages while it exists. False when it is not closing (or gone).
   */
  async reopen(tenantId: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE intake_lanes SET end_seq = NULL, closing_since = NULL
        WHERE tenant_id = $1 AND closing_since IS NOT NULL`,
      [tenantId],
    );
    return affected === 1;
  }

  /**
   * Removes a lane that has been closing for `graceMs` (the database's clock) if `mayGo`, asked
   * with the row locked (a reopening waits meanwhile), still says so. True when it was removed.
   */
  async removeClosed(
    tenantId: string,
    graceMs: number,
    mayGo: (lane: Lane) => Promise<boolean>,
  ): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const [row]: LaneRow[] = await manager.query(
        `SELECT ${COLUMNS} FROM intake_lanes
          WHERE tenant_id = $1 AND closing_since <= now() - make_interval(secs => $2::float8 / 1000)
          FOR UPDATE`,
        [tenantId, graceMs],
      );
      if (!row || !(await mayGo(laneOf(row)))) {
        return false;
      }
      await manager.query('DELETE FROM intake_lanes WHERE tenant_id = $1', [tenantId]);
      return true;
    });
  }
}
