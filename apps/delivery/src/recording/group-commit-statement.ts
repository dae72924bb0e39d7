import {
  DeliveryEvent,
  DeliveryState,
  deliveryProjectionSql,
  insertPayloadsSql,
} from '@svc/deliveries';
import {
  asStreamConflict,
  eventRowsOf,
  insertEventsSql,
  preparedQuery,
  StatementParameters,
  StreamAppend,
} from '@svc/event-store';
import { DataSource } from 'typeorm';
import type { DeliveryCommit } from './delivery-commit';
import { endpointStatusesKeptSql } from './endpoint-status-recorder';

/** The CTE every write of the statement waits on: the endpoints' statuses stay as they are. */
const GATE = '(SELECT proceed FROM statuses_kept)';

/**
 * A group commit in one round trip (ADR 0033): the bodies, the appends to the log and the
 * delivery projections as data-modifying CTEs of one statement, which PostgreSQL runs as its own
 * transaction. At a few hundred events a second a batch holds a delivery or two, and the seven
 * round trips of the transaction (BEGIN, five statements, COMMIT) were most of what a delivery
 * cost the engine and PostgreSQL.
 *
 * What it cannot do is append an endpoint event, which needs the endpoint's stream read under a
 * lock: so every write waits on a check that no endpoint the records conclude on would change
 * status, and when one would, nothing is written and the result is null: the caller writes the
 * batch in a transaction (recordEndpointStatus) instead. A stale expected version fails the
 * statement with StreamVersionConflictError, as appendToStreams does.
 */
export async function writeInOneStatement(
  dataSource: DataSource,
  commits: DeliveryCommit[],
): Promise<Map<string, DeliveryState> | null> {
  const appends: StreamAppend<DeliveryEvent>[] = commits.map((c) => ({
    streamId: c.deliveryId,
    expectedVersion: c.before?.version ?? 0,
    events: [{ ...c.event, metadata: c.metadata }],
  }));
  const parameters = new StatementParameters();
  const ctes = [
    `statuses_kept AS (${endpointStatusesKeptSql(
      commits.flatMap((c) => (c.conclusion ? [c.conclusion] : [])),
      parameters,
    )})`,
  ];
  const bodies = insertPayloadsSql(
    commits.flatMap((c) => (c.payload ? [c.payload] : [])),
    parameters,
    GATE,
  );
  if (bodies) {
    ctes.push(`bodies AS (${bodies})`);
  }
  const events = eventRowsOf(appends);
  ctes.push(
    `appended AS (${insertEventsSql(events, parameters, GATE)}
       RETURNING position, stream_id, version)`,
  );
  const before = new Map(
    commits.flatMap((c) => (c.before ? [[c.deliveryId, c.before] as const] : [])),
  );
  const projection = deliveryProjectionSql(before, events, 'appended', parameters, GATE);
  projection.statements.forEach((statement, index) =>
    ctes.push(`projection_${index + 1} AS (${statement})`),
  );
  let result: { proceed: boolean }[];
  try {
    result = await preparedQuery<{ proceed: boolean }>(
      dataSource,
      `WITH ${ctes.join(',\n')}\nSELECT proceed FROM statuses_kept`,
      parameters.values,
    );
  } catch (error) {
    throw asStreamConflict(error, appends);
  }
  return result[0]?.proceed ? projection.states : null;
}
