import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { migrateDatabase, openDataSource } from '@svc/database';
import { ApiKeysService } from '@svc/identity';
import { operationalJetStreamNames } from '@svc/messaging';
import { TenantsService } from '@svc/tenants';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Leftovers of killed bench runs older than this are removed at the start of the next run. */
const STALE_SECONDS = 6 * 3600;
const DATABASE_PREFIX = 'svc_bench_';
const STREAM_PATTERN = /^SVCBENCH_([0-9a-z]+)_[0-9a-f]+_/;

/**
 * The names of one bench run, unique on shared servers; they start with the run's start time so
 * that leftovers of a killed run are recognised (and removed by a later run).
 */
export interface BenchNamespace {
  tag: string;
  database: string;
  subjectRoot: string;
  eventsStream: string;
  deadLetterStream: string;
  consumer: string;
}

export function newNamespace(): BenchNamespace {
  const tag = `${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(4).toString('hex')}`;
  return {
    tag,
    database: `${DATABASE_PREFIX}${tag}`,
    subjectRoot: `svcbench_${tag}`,
    eventsStream: `SVCBENCH_${tag}_EVENTS`,
    deadLetterStream: `SVCBENCH_${tag}_DEAD_LETTER`,
    consumer: `svcbench_${tag}_delivery`,
  };
}

const startedAt = (tag: string) => parseInt(tag.split('_')[0], 36);

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates and migrates the run's database; returns its URL. */
export async function createDatabase(adminUrl: string, ns: BenchNamespace): Promise<string> {
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${ns.database}"`));
  const url = databaseUrl(adminUrl, ns.database);
  await migrateDatabase(url);
  return url;
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  await withAdmin(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  );
}

export async function deleteStreams(nc: NatsConnection, ns: BenchNamespace): Promise<void> {
  const jsm = await jetstreamManager(nc);
  // The operational-events stream too: the engine makes it beside the events stream (ADR 0030).
  const operational = operationalJetStreamNames(ns).stream;
  for (const name of [ns.eventsStream, ns.deadLetterStream, operational]) {
    await jsm.streams.delete(name).catch((error: unknown) => {
      if (!(
        error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound
      )) {
        throw error;
      }
    });
  }
}

/** Databases and streams of bench runs killed before their cleanup; returns what was removed. */
export async function removeStaleLeftovers(
  adminUrl: string,
  nc: NatsConnection,
): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const removed: string[] = [];
  const { rows } = await withAdmin(adminUrl, (client) =>
    client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${DATABASE_PREFIX}%`,
    ]),
  );
  for (const { datname } of rows) {
    if (now - startedAt(datname.slice(DATABASE_PREFIX.length)) > STALE_SECONDS) {
      await dropDatabase(adminUrl, datname);
      removed.push(`database ${datname}`);
    }
  }
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) {
    const match = STREAM_PATTERN.exec(name);
    if (match && now - parseInt(match[1], 36) > STALE_SECONDS) {
      await jsm.streams.delete(name).catch(() => undefined);
      removed.push(`stream ${name}`);
    }
  }
  return removed;
}

/** A tenant and a webhooks:manage key, made with the same services as the admin CLI. */
export async function createTenantWithKey(url: string): Promise<{ tenantId: string; key: string }> {
  const dataSource = await openDataSource({ url, poolSize: 1 });
  try {
    const tenant = await new TenantsService(dataSource).create('bench tenant');
    const { key } = await new ApiKeysService(dataSource).create({
      tenantId: tenant.id,
      scopes: ['webhooks:manage'],
      environment: 'live',
    });
    return { tenantId: tenant.id, key };
  } finally {
    await dataSource.destroy();
  }
}

export interface BenchEndpoint {
  id: string;
  url: string;
  secret: string;
}

/**
 * The `ordering` of POST /v1/webhooks (ADR 0045), spelt out here rather than imported: the bench
 * speaks to the API over HTTP, as a tenant's script would.
 */
export type BenchEndpointOrdering = 'unordered' | 'fifo';

/** The `filter` of POST /v1/webhooks (ADR 0046): JSON in the payload filter language. */
export type BenchEndpointFilter = Record<string, unknown>;

/**
 * Registers one endpoint per receiver port through the real API (POST /v1/webhooks), subscribed
 * to `eventsOf(index)` (by default every alert), with the ordering `orderingOf(index)` and the
 * payload filter `filterOf(index)` (by default neither sent: the API's defaults, unordered and
 * no filter).
 */
export async function registerEndpoints(
  apiBaseUrl: string,
  key: string,
  ports: number[],
  eventsOf: (index: number) => string[] = () => ['alert.*'],
  orderingOf: (index: number) => BenchEndpointOrdering | undefined = () => undefined,
  filterOf: (index: number) => BenchEndpointFilter | undefined = () => undefined,
): Promise<BenchEndpoint[]> {
  const endpoints: BenchEndpoint[] = [];
  for (const [index, port] of ports.entries()) {
    const url = `https://127.0.0.1:${port}/hooks/${index}`;
    const secret = `bench-secret-${randomBytes(16).toString('hex')}`;
    const ordering = orderingOf(index);
    const filter = filterOf(index);
    const response = await fetch(`${apiBaseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url,
        events: eventsOf(index),
        secret,
        ...(ordering !== undefined ? { ordering } : {}),
        ...(filter !== undefined ? { filter } : {}),
      }),
    });
    const text = await response.text();
    if (response.status !== 201) {
      throw new Error(`registering ${url} failed: ${response.status} ${text}`);
    }
    endpoints.push({ id: (JSON.parse(text) as { id: string }).id, url, secret });
  }
  return endpoints;
}
