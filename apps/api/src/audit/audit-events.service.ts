import { Injectable } from '@nestjs/common';
import { decodeCursor, Page, problems, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import { DataSource } from 'typeorm';
import { AuditEntry, auditEntryOf, AuditEventRow } from './audit-entry';
import { auditStatement } from './audit-query';
import type { AuditEventsQuery } from './audit-events.dto';

/** The largest log position (PostgreSQL bigint): a cursor beyond it was never issued. */
const MAX_POSITION = 2n ** 63n - 1n;

const isPosition = (text: string) => /^\d{1,19}$/.test(text) && BigInt(text) <= MAX_POSITION;

/**
 * The tenant's audit trail, read from the log itself (ADR 0047): no second copy to keep in step.
 * The caller sees its own tenant and environment only.
 */
@Injectable()
export class AuditEventsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(principal: Principal, query: AuditEventsQuery): Promise<Page<AuditEntry>> {
    if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
      throw problems.invalidRequest([{ field: 'to', detail: 'must be after from' }]);
    }
    const { sql, parameters } = auditStatement({
      tenantId: principal.tenantId,
      environment: principal.sandbox ? 'test' : 'live',
      action: query.action,
      endpointId: query.endpoint_id,
      from: query.from,
      to: query.to,
      before: decodeCursor(query.cursor, isPosition),
      take: query.limit + 1,
    });
    const rows = await this.dataSource.query<AuditEventRow[]>(sql, parameters);
    // The statement reads audit types only, each of which has an entry.
    const entries = rows.flatMap((row) => {
      const entry = auditEntryOf(row);
      return entry ? [{ id: row.position, entry }] : [];
    });
    return toPage(entries, query.limit, ({ entry }) => entry);
  }
}
