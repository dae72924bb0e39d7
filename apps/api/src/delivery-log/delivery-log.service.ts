import { Injectable } from '@nestjs/common';
import { isId } from '@svc/contracts';
import { DeliveryAttemptRecord, DeliveryRecord } from '@svc/deliveries';
import { decodeCursor, Page, problems, toPage } from '@svc/http';
import { WebhookEndpointRecord } from '@svc/webhook-endpoints';
import { DataSource, FindOptionsWhere, LessThan } from 'typeorm';

/** Reads of the delivery projections, always within the caller's tenant. */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly dataSource: DataSource) {}

  /** An endpoint's attempts, newest first; the cursor is the log position of the last one shown. */
  async attempts<T>(
    tenantId: string,
    endpointId: string,
    query: { limit: number; cursor?: string; outcome?: 'succeeded' | 'failed' },
    view: (row: DeliveryAttemptRecord) => T,
  ): Promise<Page<T>> {
    const exists =
      isId('wh', endpointId) &&
      (await this.dataSource
        .getRepository(WebhookEndpointRecord)
        .existsBy({ id: endpointId, tenantId }));
    if (!exists) {
      throw problems.notFound(`No webhook endpoint ${endpointId} exists for this tenant.`);
    }
    const before = decodeCursor(query.cursor, (position) => /^\d{1,19}$/.test(position));
    const where: FindOptionsWhere<DeliveryAttemptRecord> = {
      endpointId,
      tenantId,
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

  /** Every delivery of one event; empty for an event the tenant never had delivered. */
  async deliveriesOfEvent<T>(
    tenantId: string,
    eventId: string,
    view: (row: DeliveryRecord) => T,
  ): Promise<Page<T>> {
    const rows = await this.dataSource.getRepository(DeliveryRecord).find({
      where: { tenantId, eventId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return { data: rows.map(view), has_more: false, next_cursor: null };
  }
}
