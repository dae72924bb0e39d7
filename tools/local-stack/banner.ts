export interface BannerDetails {
  host: string;
  ports: { api: number; auth: number; delivery: number };
  databaseUrl: string;
  /** Where the embedded cluster keeps its data; absent when DATABASE_URL came from outside. */
  embeddedDataDir?: string;
  natsUrl: string;
  /** Set when the launcher started nats-server itself. */
  natsStoreDir?: string;
}

/** The URL as a person may see it in a terminal or a screenshot: no password. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export function renderBanner(details: BannerDetails): string {
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(details.host);
  const host = wildcard
    ? 'localhost'
    : details.host.includes(':')
      ? `[${details.host}]`
      : details.host;
  const url = (port: number) => `http://${host}:${port}`;
  const database = details.embeddedDataDir
    ? `${withoutPassword(details.databaseUrl)}  (embedded, data in ${details.embeddedDataDir})`
    : withoutPassword(details.databaseUrl);
  const nats = details.natsStoreDir
    ? `${details.natsUrl}  (started here, data in ${details.natsStoreDir})`
    : details.natsUrl;
  return [
    '',
    'svc webhooks is running',
    `  API        ${url(details.ports.api)}   (OpenAPI at /v1/openapi.json)`,
    `  Auth       ${url(details.ports.auth)}`,
    `  Delivery   ${url(details.ports.delivery)}   (health and metrics)`,
    `  Database   ${database}`,
    `  NATS       ${nats}`,
    '',
    'Next, in another terminal, create a tenant:',
    '  npm run -s svc -- tenants create --name Acme',
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
