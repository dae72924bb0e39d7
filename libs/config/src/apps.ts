import { ConfigOf, loadSections, Section } from './section';
import {
  apiClients,
  apiPorts,
  authorizationServer,
  authPorts,
  consoleSettings,
  database,
  delivery,
  deliveryPort,
  deliveryTimeout,
  fairness,
  httpLimits,
  jetstream,
  listen,
  localStack,
  logging,
  nats,
  NatsSettings,
  retention,
  runtime,
  secrets,
  subjects,
  tokenKeys,
  tokens,
  tracing,
  webhookAddresses,
  webhookBatches,
} from './settings';

/**
 * Which sections each app loads: it reads these and nothing else, so a bad value of another
 * app's setting does not stop it. docs/configuration.md's "read by" comes from these lists.
 */
const SERVED = [runtime, logging, listen, httpLimits, tracing] as const;

export const API_SECTIONS = [
  ...SERVED,
  apiPorts,
  apiClients,
  database,
  nats,
  subjects,
  secrets,
  webhookAddresses,
  webhookBatches,
  deliveryTimeout,
  retention,
  tokens,
  tokenKeys,
  consoleSettings,
] as const;

export const AUTH_SECTIONS = [
  ...SERVED,
  authPorts,
  database,
  nats,
  subjects,
  tokens,
  authorizationServer,
  consoleSettings,
] as const;

export const DELIVERY_SECTIONS = [
  ...SERVED,
  deliveryPort,
  database,
  nats,
  subjects,
  jetstream,
  secrets,
  webhookAddresses,
  deliveryTimeout,
  delivery,
  fairness,
  retention,
] as const;

/** The admin CLI's database commands (migrate, retention, tenants, ...). */
export const CLI_SECTIONS = [runtime, database, retention] as const;

/** The admin CLI's NATS commands (`svc events publish`): no database, no keys. */
export const CLI_NATS_SECTIONS = [runtime, nats, subjects] as const;

/**
 * The admin CLI's commands that seal secrets (`svc signing-keys`): the database and the
 * encryption keys. Apart from CLI_SECTIONS, so that `svc migrate` and the others still run in
 * production without SECRET_ENCRYPTION_KEY.
 */
export const CLI_SECRETS_SECTIONS = [runtime, database, secrets] as const;

export type ApiConfig = ConfigOf<typeof API_SECTIONS>;
export type AuthAppConfig = ConfigOf<typeof AUTH_SECTIONS>;
/** The sections the delivery engine reads. */
export type DeliveryAppConfig = ConfigOf<typeof DELIVERY_SECTIONS>;
export type CliConfig = ConfigOf<typeof CLI_SECTIONS>;
export type CliNatsConfig = ConfigOf<typeof CLI_NATS_SECTIONS>;
export type CliSecretsConfig = ConfigOf<typeof CLI_SECRETS_SECTIONS>;

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig =>
  loadSections(API_SECTIONS, env);

export const loadAuthConfig = (env: NodeJS.ProcessEnv = process.env): AuthAppConfig =>
  loadSections(AUTH_SECTIONS, env);

export const loadDeliveryConfig = (env: NodeJS.ProcessEnv = process.env): DeliveryAppConfig =>
  loadSections(DELIVERY_SECTIONS, env);

export const loadCliConfig = (env: NodeJS.ProcessEnv = process.env): CliConfig =>
  loadSections(CLI_SECTIONS, env);

export const loadCliSecretsConfig = (env: NodeJS.ProcessEnv = process.env): CliSecretsConfig =>
  loadSections(CLI_SECRETS_SECTIONS, env);

/** Only what a NATS publisher needs (`svc events publish`): no database, no keys. */
export function loadNatsConfig(env: NodeJS.ProcessEnv = process.env): {
  nats: NatsSettings;
  subjectRoot: string;
} {
  const config = loadSections(CLI_NATS_SECTIONS, env);
  return { nats: config.nats, subjectRoot: config.jetstream.subjectRoot };
}

/** Who reads which sections, as docs/configuration.md names them. */
export const READERS: ReadonlyArray<{ reader: string; sections: readonly Section<unknown>[] }> = [
  { reader: 'api', sections: API_SECTIONS },
  { reader: 'auth', sections: AUTH_SECTIONS },
  { reader: 'delivery', sections: DELIVERY_SECTIONS },
  { reader: 'cli', sections: [...CLI_SECTIONS, ...CLI_NATS_SECTIONS, ...CLI_SECRETS_SECTIONS] },
  { reader: 'npm start', sections: [localStack] },
];
