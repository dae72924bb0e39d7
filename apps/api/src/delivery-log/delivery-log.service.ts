import { Injectable } from '@nestjs/common';
import { DeliveryAttemptRecord, DeliveryRecord } from '@svc/deliveries';
import { decodeCursor, Page, toPage } from '@svc/http';
import type { Principal } from '@svc/identity';
import { DataSource, FindOptionsWhere, LessThan } from 'typeorm';
import { environmentOf, requireVisibleEndpoint } from '../webhooks/webhook-endpoints.service';

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

  /** An endpoint's attempts, newest first; the cursor is the log position of the last one shown. */
  async attempts<T>(
    principal: Principal,
    endpointId: string,
    query: { limit: number; cursor?: string; outcome?: 'succeeded' | 'failed' },
    view: (row: DeliveryAttemptRecord) => T,
  ): Promise<Page<T>> {
    await requireVisibleEndpoint(this.dataSource, principal, endpointId);
    const before = decodeCursor(query.cursor, isPosition);
    const where: FindOptionsWhere<DeliveryAttemptRecord> = {
      endpointId,
      tenantId: principal.tenantId,
      ...(query.outcome && { succeeded: query.outcome === 'succeeded' }),
      ...(before && { position: LessThan(before) }),
    };
    const rows = await this.dataSource.getRepository(DeliveryAttemptRecord).find({
      where,
      order: { position: 'DESC' },
      take: query.limit + 1,
    });
    return toPage(
      rows.map((row) => ({ id: row.position, row })),
      query.limit,
      ({ row }) => view(row),
    );
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
