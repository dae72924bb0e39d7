import { Injectable } from '@nestjs/common';
import { DeliveryAttemptRecord, DeliveryRecord } from '@svc/deliveries';
import { decodeCursor, encodeCursor, Page, problems, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import { DataSource } from 'typeorm';
import { environmentOf, requireVisibleEndpoint } from '../webhooks/webhook-endpoints.service';
import {
  ATTEMPT_SCAN_BUDGET,
  AttemptFilter,
  attemptOf,
  rangeStatement,
  ScannedAttemptRow,
  walkStatement,
} from './attempt-scan';

/** The query of the attempts route, validated. */
export interface AttemptsQueryValues {
  limit: number;
  cursor?: string;
  outcome?: 'succeeded' | 'failed';
  event_type?: string;
  from?: Date;
  to?: Date;
}

/** The range statement's one row when no attempt of the range matched: only the count. */
interface EmptyRangeRow {
  position: null;
  in_range: string;
}

/** The largest log position (PostgreSQL bigint): a cursor beyond it was never issued. */
const MAX_POSITION = 2n ** 63n - 1n;

function isPosition(text: string): boolean {
  return /^\d{1,19}$/.test(text) && BigInt(text) <= MAX_POSITION;
}

/**
 * Reads of the delivery projections, always within the caller's tenant and environment
 * (ADR 0018): the views follow the environment of the endpoint delivered to.
 */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly dataSource: DataSource) {}

  /** Attempts one request reads at most (ADR 0043); a test may make it small. */
  scanBudget = ATTEMPT_SCAN_BUDGET;

  /**
   * An endpoint's attempts, newest first; the cursor is the log position of the last one read.
   * A small time range is read whole from the (endpoint, time) index and the page is exact; any
   * other filtered read walks the endpoint's attempts by position, at most scanBudget of them,
   * and may answer fewer than limit with a cursor to go on (ADR 0043).
   */
  async attempts<T>(
    principal: Principal,
    endpointId: string,
    query: AttemptsQueryValues,
    view: (row: DeliveryAttemptRecord & { eventType: string | null }) => T,
  ): Promise<Page<T>> {
    if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
      throw problems.invalidRequest([{ field: 'to', detail: 'must be after from' }]);
    }
    await requireVisibleEndpoint(this.dataSource, principal, endpointId);
    const filter: AttemptFilter = {
      endpointId,
      tenantId: principal.tenantId,
      outcome: query.outcome,
      eventType: query.event_type,
      from: query.from,
      to: query.to,
      before: decodeCursor(query.cursor, isPosition),
      take: query.limit + 1,
      budget: this.scanBudget,
    };
    const rows =
      (filter.from || filter.to ? await this.readRange(filter) : null) ?? (await this.walk(filter));
    return this.pageOf(rows, query.limit, filter.budget, view);
  }

  /** The page from the range, or null when the range holds more than the budget. */
  private async readRange(filter: AttemptFilter): Promise<ScannedAttemptRow[] | null> {
    const { sql, parameters } = rangeStatement(filter);
    const rows = await this.dataSource.query<(ScannedAttemptRow | EmptyRangeRow)[]>(
      sql,
      parameters,
    );
    if (Number(rows[0]?.in_range ?? 0) > filter.budget) {
      return null;
    }
    return rows.filter((row): row is ScannedAttemptRow => row.position !== null);
  }

  private async walk(filter: AttemptFilter): Promise<ScannedAttemptRow[]> {
    const { sql, parameters } = walkStatement(filter);
    return this.dataSource.query<ScannedAttemptRow[]>(sql, parameters);
  }

  /**
   * Matched rows make the page (limit + 1 of them: there is more). A row that did not match is
   * the last attempt a walk read with its whole budget: the next page starts after it.
   */
  private pageOf<T>(
    rows: ScannedAttemptRow[],
    limit: number,
    budget: number,
    view: (row: DeliveryAttemptRecord & { eventType: string | null }) => T,
  ): Page<T> {
    const matched = rows.filter((row) => row.matched);
    if (matched.length > limit) {
      return toPage(
        matched.map((row) => ({ id: row.position, row })),
        limit,
        ({ row }) => view(attemptOf(row)),
      );
    }
    const last = rows.at(-1);
    const budgetSpent = last !== undefined && Number(last.scanned) === budget;
    return {
      data: matched.map((row) => view(attemptOf(row))),
      has_more: budgetSpent,
      next_cursor: budgetSpent ? encodeCursor(last.position) : null,
    };
  }

  /**
   * Every delivery of one event to endpoints of the caller's environment; empty for an event the
   * tenant never had delivered there. A delivery to an endpoint since deleted has no projection
   * row to say: it counts as live, since the engine delivers (live) events only to live endpoints.
   */
  async deliveriesOfEvent<T>(
    principal: Principal,
    eventId: string,
    view: (row: DeliveryRecord) => T,
  ): Promise<Page<T>> {
    const environment = environmentOf(principal);
    const endpointOfAnotherEnvironment =
      'SELECT 1 FROM webhook_endpoints endpoint WHERE endpoint.id = delivery.endpoint_id AND endpoint.environment <> :environment';
    const rows = await this.dataSource
      .getRepository(DeliveryRecord)
      .createQueryBuilder('delivery')
      .where('delivery.tenantId = :tenantId AND delivery.eventId = :eventId', {
        tenantId: principal.tenantId,
        eventId,
        environment,
      })
      .andWhere(
        environment === 'live'
          ? `NOT EXISTS (${endpointOfAnotherEnvironment})`
          : `EXISTS (SELECT 1 FROM webhook_endpoints endpoint WHERE endpoint.id = delivery.endpoint_id AND endpoint.environment = :environment)`,
      )
      .orderBy('delivery.createdAt', 'ASC')
      .addOrderBy('delivery.id', 'ASC')
      .getMany();
    return { data: rows.map(view), has_more: false, next_cursor: null };
  }
}
