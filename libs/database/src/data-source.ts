import {
  DeliveryAttemptRecord,
  DeliveryRecord,
  InboundEvent,
  ScheduledDelivery,
} from '@svc/deliveries';
import { StoredEvent } from '@svc/event-store';
import { ApiKey, PortalLink, PortalSession } from '@svc/identity';
import { OAuthClient, User } from '@svc/oauth';
import { Tenant } from '@svc/tenants';
import { WebhookEndpointRecord } from '@svc/webhook-endpoints';
import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations';

export const ENTITIES = [
  Tenant,
  ApiKey,
  StoredEvent,
  WebhookEndpointRecord,
  DeliveryRecord,
  DeliveryAttemptRecord,
  ScheduledDelivery,
  InboundEvent,
  User,
  OAuthClient,
  PortalLink,
  PortalSession,
];

export interface DatabaseSettings {
  url: string;
  poolSize: number;
}

/** The schema comes from migrations only; `synchronize` stays off everywhere. */
export function dataSourceOptions(settings: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    poolSize: settings.poolSize,
    extra: { connectionTimeoutMillis: 5000 },
  };
}

export async function openDataSource(settings: DatabaseSettings): Promise<DataSource> {
  return new DataSource(dataSourceOptions(settings)).initialize();
}
