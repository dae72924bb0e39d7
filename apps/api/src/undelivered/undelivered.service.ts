import { Injectable } from '@nestjs/common';
import { isId, retentionKeyColumn } from '@svc/contracts';
import { DeliveryRecord, DeliveryStatus, TEST_EVENT_TYPE } from '@svc/deliveries';
import { decodeCursor, Page, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import type { EndpointEnvironment } from '@svc/webhook-endpoints';
import { DataSource } from 'typeorm';
import { environmentOf, requireVisibleEndpoint } from '../webhooks/webhook-endpoints.service';
import type { UndeliveredStatus } from './undelivered-status';

/** One delivery of the view, with the outcome of its last attempt. */
export interface UndeliveredRow {
  delivery: DeliveryRecord;
  lastStatusCode: number | null;
  lastErrorKind: string | null;
  lastErrorMessage: string | null;
  /** The endpoint's URL now; null if its row is gone. */
  endpointUrl: string | null;
}

/** What one page asks for, the caller's tenant and environment included. */
export interface UndeliveredFilter {
  tenantId: string;
  environment: EndpointEnvironment;
  status: UndeliveredStatus;
  endpointId?: string;
  eventType?: string;
  /** The id of the last delivery of the previous page. */
  after: string | null;
  /** Rows to read: the page and one more, which only says there is more. */
  take: number;
}

/**
 * Each status as the partial indexes of migration 1764000850000 define it, clause for clause, so
 * that PostgreSQL proves the query implies their predicate. Probes are never in the view: they
 * say nothing of an endpoint's health and recover and replay leave them out too.
 */
const STATUS_CLAUSES: Record<UndeliveredStatus, string> = {
  abandoned: `d.status = 'abandoned'`,
  // A replayed or re-driven delivery starts a run with no attempt: queued, not failing yet.
  failing: `d.status = 'pending' AND d.run_attempts > 0`,
};
const NOT_A_PROBE = `d.event_type <> '${TEST_EVENT_TYPE}'`;

/**
 * The environment of a delivery is its endpoint's, as GET /v1/events/{id}/deliveries has it (ADR
 * 0018): a delivery to an endpoint since deleted counts as live. The endpoint is looked up within
 * the tenant, by its primary key, for the rows of the page only.
 */
const ENVIRONMENT_CLAUSES: Record<EndpointEnvironment, string> = {
  live: `NOT EXISTS (SELECT 1 FROM webhook_endpoints e
                      WHERE e.id = d.endpoint_id AND e.tenant_id = d.tenant_id
                        AND e.environment <> 'live')`,
  test: `EXISTS (SELECT 1 FROM webhook_endpoints e
                  WHERE e.id = d.endpoint_id AND e.tenant_id = d.tenant_id
                    AND e.environment = 'test')`,
};

/**
 * The statement of one page, newest first by the time of the delivery's event (its retention key,
 * which partitions the table, then its id). It reads deliveries_undelivered_idx (tenant, status,
 * time), or deliveries_endpoint_undelivered_idx for one endpoint, backwards from the cursor,
 * partition after partition, and stops when the page is full: its cost follows the page, never
 * the tenant's history. The last attempt is found, for the page's rows only, by the endpoint and
 * time of the attempt (delivery_attempts_endpoint_time_idx) in the delivery's own partition.
 */
export function undeliveredStatement(filter: UndeliveredFilter): {
  sql: string;
  parameters: unknown[];
} {
  const parameters: unknown[] = [filter.tenantId];
  const add = (value: unknown) => `$${parameters.push(value)}`;
  const clauses = [
    'd.tenant_id = $1',
    STATUS_CLAUSES[filter.status],
    NOT_A_PROBE,
    ...(filter.endpointId ? [`d.endpoint_id = ${add(filter.endpointId)}`] : []),
    ...(filter.eventType ? [`d.event_type = ${add(filter.eventType)}`] : []),
    ...(filter.after ? afterClauses(filter.after, add) : []),
    ENVIRONMENT_CLAUSES[filter.environment],
  ];
  const sql = `
    SELECT d.id, d.event_id, d.endpoint_id, d.tenant_id, d.event_type, d.sequence, d.ordered, d.status, d.attempts,
           d.run_attempts, d.last_attempt_at, d.next_attempt_at, d.created_at, d.completed_at,
           d.version, last.status_code AS last_status_code, last.error_kind AS last_error_kind,
           last.error_message AS last_error_message, endpoint.url AS endpoint_url
      FROM (SELECT * FROM deliveries d
             WHERE ${clauses.join('\n               AND ')}
             ORDER BY d.retention_key DESC, d.id DESC
             LIMIT ${add(filter.take)}) d
      LEFT JOIN LATERAL (
        SELECT a.status_code, a.error_kind, a.error_message FROM delivery_attempts a
         WHERE a.endpoint_id = d.endpoint_id AND a.attempted_at = d.last_attempt_at
           AND a.retention_key = d.retention_key AND a.delivery_id = d.id
         ORDER BY a.attempt DESC
         LIMIT 1) last ON true
      LEFT JOIN webhook_endpoints endpoint
        ON endpoint.id = d.endpoint_id AND endpoint.tenant_id = d.tenant_id
     ORDER BY d.retention_key DESC, d.id DESC`;
  return { sql, parameters };
}

/**
 * After the cursor's delivery in (retention key, id) order; the plain bound on the key lets the
 * planner skip the partitions after it.
 */
function afterClauses(after: string, add: (value: unknown) => string): string[] {
  const key = add(retentionKeyColumn(after));
  return [
    `d.retention_key <= ${key}::timestamptz`,
    `(d.retention_key, d.id) < (${key}::timestamptz, ${add(after)})`,
  ];
}

interface StatementRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  tenant_id: string;
  event_type: string;
  /** bigint: pg answers it as a string. */
  sequence: string | null;
  ordered: boolean;
  status: DeliveryStatus;
  attempts: number;
  run_attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  version: number;
  last_status_code: number | null;
  last_error_kind: string | null;
  last_error_message: string | null;
  endpoint_url: string | null;
}

function rowOf(row: StatementRow): UndeliveredRow {
  return {
    delivery: {
      id: row.id,
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      tenantId: row.tenant_id,
      eventType: row.event_type,
      sequence: row.sequence === null ? null : Number(row.sequence),
      ordered: row.ordered,
      status: row.status,
      attempts: row.attempts,
      runAttempts: row.run_attempts,
      lastAttemptAt: row.last_attempt_at,
      nextAttemptAt: row.next_attempt_at,
      createdAt: row.created_at,
      completedAt: row.completed_at,
      version: row.version,
    },
    lastStatusCode: row.last_status_code,
    lastErrorKind: row.last_error_kind,
    lastErrorMessage: row.last_error_message,
    endpointUrl: row.endpoint_url,
  };
}

/**
 * The undelivered view (issue 31, ADR 0042): the deliveries of the caller's tenant and
 * environment that did not get through, abandoned or still failing, across its endpoints.
 */
@Injectable()
export class UndeliveredService {
  constructor(private readonly dataSource: DataSource) {}

  async list<T>(
    principal: Principal,
    query: {
      status: UndeliveredStatus;
      endpoint_id?: string;
      event_type?: string;
      limit: number;
      cursor?: string;
    },
    view: (row: UndeliveredRow) => T,
  ): Promise<Page<T>> {
    if (query.endpoint_id !== undefined) {
      // Another tenant's or environment's endpoint is a 404, as on every route that names one.
      await requireVisibleEndpoint(this.dataSource, principal, query.endpoint_id);
    }
    const after = decodeCursor(query.cursor, (id) => isId('del', id));
    const { sql, parameters } = undeliveredStatement({
      tenantId: principal.tenantId,
      environment: environmentOf(principal),
      status: query.status,
      endpointId: query.endpoint_id,
      eventType: query.event_type,
      after,
      take: query.limit + 1,
    });
    const rows = await this.dataSource.query<StatementRow[]>(sql, parameters);
    return toPage(
      rows.map((row) => ({ id: row.id, row: rowOf(row) })),
      query.limit,
      ({ row }) => view(row),
    );
  }
}
