import type { DataSource } from 'typeorm';
import type { RateWindows, WindowTake } from '../../dispatch/endpoint-rate-limiter';

/**
 * The counts in PostgreSQL (`endpoint_rate_windows`, an UNLOGGED table): windows are seconds of
 * the database's clock, so engines with skewed clocks still share one window.
 */
export class PostgresRateWindows implements RateWindows {
  constructor(private readonly dataSource: DataSource) {}

  async take(endpointId: string, asked: number, limit: number): Promise<WindowTake> {
    // One statement, one round trip: the row of the current second gets `asked` more unless it
    // is full already (then no row comes back), and the answer says how much of the second is left.
    const [row]: { taken_after: number | null; window_start_ms: number; remaining_ms: number }[] =
      await this.dataSource.query(
        `WITH clock AS MATERIALIZED (SELECT clock_timestamp() AS now),
         slot AS MATERIALIZED (SELECT now, date_trunc('second', now) AS start FROM clock),
         counted AS (
           INSERT INTO endpoint_rate_windows AS w (endpoint_id, window_start, taken)
           SELECT $1, (SELECT start FROM slot), $2
           ON CONFLICT (endpoint_id, window_start)
             DO UPDATE SET taken = w.taken + EXCLUDED.taken WHERE w.taken < $3
           RETURNING w.taken
         )
         SELECT (SELECT taken FROM counted) AS taken_after,
                extract(epoch FROM start)::float8 * 1000 AS window_start_ms,
                extract(epoch FROM start + interval '1 second' - now)::float8 * 1000 AS remaining_ms
           FROM slot`,
        [endpointId, asked, limit],
      );
    return {
      windowStartMs: row.window_start_ms,
      takenAfter: row.taken_after,
      remainingMs: row.remaining_ms,
    };
  }

  async sweep(olderThanMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM endpoint_rate_windows
        WHERE window_start < clock_timestamp() - make_interval(secs => $1::double precision / 1000) - interval '1 second'`,
      [olderThanMs],
    );
  }
}
