import { AUDIT_ACTION_EVENT_TYPES, AUDIT_EVENT_TYPES, AuditAction } from './audit-entry';

/** What one page of the trail asks for, the tenant and environment being the caller's. */
export interface AuditFilter {
  tenantId: string;
  environment: 'live' | 'test';
  action?: AuditAction;
  endpointId?: string;
  from?: Date;
  to?: Date;
  /** The position of the last entry of the previous page. */
  before: string | null;
  /** Entries to read: the page and one more, which only says there is more. */
  take: number;
}

export interface AuditStatement {
  sql: string;
  parameters: unknown[];
}

/**
 * The audit types as SQL literals, written into the statement rather than bound: PostgreSQL uses
 * the partial index events_audit_idx only when it can prove from the statement's own text that
 * every row read is of one of its types. The types are constants of our code, never input.
 */
export function auditTypesLiteral(types: readonly string[] = AUDIT_EVENT_TYPES): string {
  return types
    .map((type) => {
      if (!/^[a-z_.]+$/.test(type)) {
        throw new Error(`not an event type: ${type}`);
      }
      return `'${type}'`;
    })
    .join(', ');
}

/**
 * Older events lack the environment in their metadata: an endpoint's registration has it in its
 * data, and anything else recorded before ADR 0018 was live.
 */
export const ENVIRONMENT_OF_EVENT = `coalesce(metadata->>'environment', data->>'environment', 'live')`;

/**
 * The caller's tenant's audit events, newest first, from the cursor down: one range of
 * events_audit_idx (tenant, position DESC), so another tenant's rows are never read. The
 * environment, action, endpoint and time are checked on the rows of that range.
 */
export function auditStatement(filter: AuditFilter): AuditStatement {
  const parameters: unknown[] = [];
  const add = (value: unknown) => `$${parameters.push(value)}`;
  const clauses = [
    `type IN (${auditTypesLiteral()})`,
    `metadata->>'tenant_id' = ${add(filter.tenantId)}`,
    `${ENVIRONMENT_OF_EVENT} = ${add(filter.environment)}`,
    ...(filter.action ? [`type = ${add(AUDIT_ACTION_EVENT_TYPES[filter.action])}`] : []),
    ...(filter.endpointId ? [`data->>'endpoint_id' = ${add(filter.endpointId)}`] : []),
    ...(filter.from ? [`recorded_at >= ${add(filter.from)}::timestamptz`] : []),
    ...(filter.to ? [`recorded_at < ${add(filter.to)}::timestamptz`] : []),
    ...(filter.before ? [`position < ${add(filter.before)}::bigint`] : []),
  ];
  const sql = `SELECT position, stream_id, type, data, metadata, recorded_at FROM events
     WHERE ${clauses.join('\n       AND ')}
     ORDER BY position DESC
     LIMIT ${add(filter.take)}`;
  return { sql, parameters };
}
