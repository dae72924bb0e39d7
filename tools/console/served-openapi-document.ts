import 'reflect-metadata';
import { loadApiConfig } from '@svc/config';
import { createLogger } from '@svc/observability';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createApiApplication } from '../../apps/api/src/api-application';

/** The PostgreSQL server the scratch database is made on: DATABASE_URL's, else the local one. */
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The document the API serves at GET /v1/openapi.json, from the API app itself: assembled in this
 * process over an empty scratch database (its start needs a connection, not a schema; NATS is
 * not reached before it listens), asked through Fastify's inject, closed, the database dropped.
 * So the generated types need PostgreSQL only, no running API.
 */
export async function servedOpenApiDocument(): Promise<unknown> {
  const name = `svc_console_types_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE "${name}"`));
  try {
    const databaseUrl = new URL(SERVER_URL);
    databaseUrl.pathname = `/${name}`;
    const config = loadApiConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl.toString(),
      DATABASE_POOL_SIZE: '1',
      NATS_URL: 'nats://127.0.0.1:4222',
      SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    const app = await createApiApplication(config, createLogger('api', 'silent'));
    try {
      await app.init();
      const answer = await app
        .getHttpAdapter()
        .getInstance()
        .inject({ method: 'GET', url: '/v1/openapi.json' });
      if (answer.statusCode !== 200) {
        throw new Error(`GET /v1/openapi.json answered ${answer.statusCode}`);
      }
      return JSON.parse(answer.body) as unknown;
    } finally {
      await app.close();
    }
  } finally {
    await onServer((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
}
