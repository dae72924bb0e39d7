import type { DeliveryAttemptRecord } from '@svc/deliveries';

/**
 * The most attempts one request of GET /v1/webhooks/{id}/attempts reads (ADR 0043): a selective
 * filter (a rare event type, a past time range) answers what it found among them, with a cursor
 * to go on, so that no request's cost grows with the endpoint's history.
 */
export const ATTEMPT_SCAN_BUDGET = 5_000;

/** What one page asks for; the endpoint is already known to be the caller's. */
export interface AttemptFilter {
  endpointId: string;
  tenantId: string;
  outcome?: 'succeeded' | 'failed';
  eventType?: string;
  from?: Date;
  to?: Date;
  /** The position of the last attempt read by the previous page. */
  before: string | null;
  /** Attempts to answer: the page and one more, which only says there is more. */
  take: number;
  budget: number;
}

/** A row of either statement: an attempt, its delivery's event type and whether it matched. */
export interface ScannedAttemptRow {
  position: string;
  delivery_id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string | null;
  attempt: number;
  succeeded: boolean;
  status_code: number | null;
  error_kind: string | null;
  error_message: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  attempted_at: Date;
  /** bigint: pg answers it as a string. */
  sequence: string | null;
  matched: boolean;
  /** Walk only: how many attempts the walk had read when it reached this one. */
  scanned: string | null;
  /** Range only: how many attempts the range holds (counted up to budget + 1). */
  in_range: string | null;
}

export interface Statement {
  sql: string;
  parameters: unknown[];
}

const COLUMNS = `s.position, s.delivery_id, s.tenant_id, s.endpoint_id, s.event_id, delivery.event_type,
       s.attempt, s.succeeded, s.status_code, s.error_kind, s.error_message, s.latency_ms,
       s.response_excerpt, s.attempted_at, s.sequence`;

/**
 * The event type is the delivery's: found by its primary key (id, retention_key) in its own
 * partition, for each attempt read. LIMIT 1 keeps the lookup a nested loop per attempt, never a
 * join that reads the deliveries table.
 */
const DELIVERY_OF_ATTEMPT = `LEFT JOIN LATERAL (
         SELECT d.event_type FROM deliveries d
          WHERE d.id = s.delivery_id AND d.retention_key = s.retention_key
          LIMIT 1) delivery ON true`;

type Add = (value: unknown) => string;

function parametersOf(): { parameters: unknown[]; add: Add } {
  const parameters: unknown[] = [];
  return { parameters, add: (value) => `$${parameters.push(value)}` };
}

function outcomeAndTypeClauses(filter: AttemptFilter, add: Add): string[] {
  return [
    ...(filter.outcome ? [`s.succeeded = ${add(filter.outcome === 'succeeded')}`] : []),
    ...(filter.eventType ? [`delivery.event_type = ${add(filter.eventType)}`] : []),
  ];
}

function timeClauses(filter: AttemptFilter, add: Add, alias: string): string[] {
  return [
    ...(filter.from ? [`${alias}.attempted_at >= ${add(filter.from)}::timestamptz`] : []),
    ...(filter.to ? [`${alias}.attempted_at < ${add(filter.to)}::timestamptz`] : []),
  ];
}

const conjunction = (clauses: string[]) => (clauses.length ? clauses.join(' AND ') : 'true');

/**
 * A time range's attempts, read as one range of delivery_attempts_endpoint_time_idx
 * (endpoint_id, attempted_at) per partition, at most budget + 1 of them. When they are all there
 * (in_range <= budget), the page is exact: those before the cursor, sorted by position, filtered
 * by outcome and event type. More than that: the caller walks instead.
 */
export function rangeStatement(filter: AttemptFilter): Statement {
  const { parameters, add } = parametersOf();
  const range = [
    `a.endpoint_id = ${add(filter.endpointId)}`,
    `a.tenant_id = ${add(filter.tenantId)}`,
    ...timeClauses(filter, add, 'a'),
  ];
  // The cursor applies to the range once read, so that budget + 1 bounds the entries read and
  // every page of a range takes the same read.
  const page = [
    ...(filter.before ? [`s.position < ${add(filter.before)}::bigint`] : []),
    ...outcomeAndTypeClauses(filter, add),
  ];
  // One row at least, the count, so that the caller knows the range was complete even when the
  // outcome or event type matched none of it (the page's columns are then null).
  const sql = `
    WITH in_range AS MATERIALIZED (
      SELECT a.* FROM delivery_attempts a WHERE ${range.join(' AND ')} LIMIT ${add(filter.budget + 1)})
    SELECT page.*, counted.in_range
      FROM (SELECT count(*) AS in_range FROM in_range) counted
      LEFT JOIN LATERAL (
        SELECT ${COLUMNS}, true AS matched, NULL AS scanned
          FROM in_range s
          ${DELIVERY_OF_ATTEMPT}
         WHERE ${conjunction(page)}
         ORDER BY s.position DESC
         LIMIT ${add(filter.take)}) page ON true`;
  return { sql, parameters };
}

/**
 * The endpoint's attempts from the cursor down, newest first, by delivery_attempts_endpoint_idx
 * (endpoint_id, position DESC): at most budget of them are read. Those that match come back, and
 * so does the last one read when the walk used its whole budget (matched or not), which is where
 * the next page starts. The walk stops as soon as the page is full. The attempts are numbered
 * after the limited walk, in the order it yields them (no sort), so that the walk stays a Limit
 * over the index scans that stops with the page, never a sort of the endpoint's attempts.
 */
export function walkStatement(filter: AttemptFilter): Statement {
  const { parameters, add } = parametersOf();
  const walked = [
    `a.endpoint_id = ${add(filter.endpointId)}`,
    `a.tenant_id = ${add(filter.tenantId)}`,
    ...(filter.before ? [`a.position < ${add(filter.before)}::bigint`] : []),
  ];
  const budget = add(filter.budget);
  const matched = conjunction([
    ...outcomeAndTypeClauses(filter, add),
    ...timeClauses(filter, add, 's'),
  ]);
  const sql = `
    SELECT * FROM (
      SELECT ${COLUMNS}, ${matched} AS matched, s.scanned, NULL AS in_range
        FROM (SELECT walked.*, row_number() OVER (ORDER BY walked.position DESC) AS scanned
                FROM (SELECT a.* FROM delivery_attempts a
                       WHERE ${walked.join(' AND ')}
                       ORDER BY a.position DESC
                       LIMIT ${budget}) walked) s
        ${DELIVERY_OF_ATTEMPT}) read
     WHERE read.matched OR read.scanned = ${budget}
     ORDER BY read.position DESC
     LIMIT ${add(filter.take)}`;
  return { sql, parameters };
}

/** The attempt of a row, with its delivery's event type, for the response's view. */
export function attemptOf(
  row: ScannedAttemptRow,
): DeliveryAttemptRecord & { eventType: string | null } {
  return {
    position: row.position,
    deliveryId: row.delivery_id,
    tenantId: row.tenant_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    succeeded: row.succeeded,
    statusCode: row.status_code,
    errorKind: row.error_kind,
    errorMessage: row.error_message,
    latencyMs: row.latency_ms,
    responseExcerpt: row.response_excerpt,
    attemptedAt: row.attempted_at,
    sequence: row.sequence === null ? null : Number(row.sequence),
  };
}
