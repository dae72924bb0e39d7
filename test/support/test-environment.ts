/** Where the end-to-end suites find PostgreSQL and NATS (real servers, never mocks). */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEMPLATE_DATABASE = 'svc_e2e_template';
export const TEST_DATABASE_PREFIX = 'svc_e2e_run_';

export function databaseUrl(database: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
