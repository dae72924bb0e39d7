export interface BannerDetails {
  host: string;
  ports: { api: number; auth: number; delivery: number };
  /** Where api and auth serve /healthz, /readyz and /metrics. */
  managementPorts: { api: number; auth: number };
  databaseUrl: string;
  /** Where the embedded cluster keeps its data; absent when DATABASE_URL came from outside. */
  embeddedDataDir?: string;
  natsUrl: string;
  /** Set when the launcher started nats-server itself. */
  natsStoreDir?: string;
  /** The CA the engine trusts for `svc listen`; absent in production mode. */
  localCaFile?: string;
  /** Where the API serves the console (CONSOLE_URL), and whether its files are built. */
  console: { url: string; built: boolean };
}

/** How a person on this machine reaches an app listening on `host`. */
export function localUrl(host: string, port: number): string {
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(host);
  const shown = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
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
  const url = (port: number) => localUrl(details.host, port);
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
    details.console.built
      ? `  Console    ${details.console.url}   (sign in as a user, below)`
      : `  Console    ${details.console.url}   (not built yet: npm run build, then reload)`,
    `  Auth       ${url(details.ports.auth)}`,
    `  Delivery   ${url(details.ports.delivery)}   (management only)`,
    `  Management api ${url(details.managementPorts.api)}, auth ${url(details.managementPorts.auth)}   (/healthz, /readyz, /metrics)`,
    `  Database   ${database}`,
    `  NATS       ${nats}`,
    ...(details.localCaFile
      ? [
          `  Local CA   ${details.localCaFile}   (trusted by this engine; loopback endpoints allowed)`,
        ]
      : []),
    '',
    'Next, in another terminal: a tenant, an API key, a listener, an event (README, Quick start):',
    '  npm run -s svc -- tenants create --name Acme',
    '  npm run -s svc -- api-keys create --tenant ten_... --scopes webhooks:manage',
    '  npm run -s svc -- listen --api-key svc_live_...',
    `  npm run -s svc -- events publish --tenant ten_... --type alert.created --data '{"id":"alr_1"}'`,
    '',
    'To sign in to the console, a user of that tenant (the password, 12+ characters, from stdin):',
    "  printf '%s' 'a long passphrase here' | npm run -s svc -- users create --email you@example.com --tenant ten_... --scopes webhooks:manage",
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
