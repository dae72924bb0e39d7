import { createHash } from 'node:crypto';
import ms from 'ms';
import * as ipaddr from 'ipaddr.js';
import { z } from 'zod';

/** The injection token of the validated configuration in every app's module graph. */
export const APP_CONFIG = Symbol('APP_CONFIG');

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const commaList = z
  .string()
  .default('')
  .transform((raw) =>
    raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const base64Key = z.string().refine((value) => Buffer.from(value, 'base64').length === 32, {
  message: 'must be 32 bytes encoded in base64 (generate one with `openssl rand -base64 32`)',
});

const cidrList = commaList.superRefine((items, ctx) => {
  for (const item of items) {
    if (!ipaddr.isValidCIDR(item)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not a CIDR range such as 127.0.0.0/8`,
      });
    }
  }
});

/** A duration such as `500ms`, `5s`, `30m` or `2h`, in milliseconds. */
const duration = z.string().transform((raw, ctx) => {
  const value = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(raw.trim())
    ? ms(raw.trim() as ms.StringValue)
    : NaN;
  if (!Number.isFinite(value) || value <= 0) {
    ctx.addIssue({
      code: 'custom',
      message: `"${raw}" is not a duration such as 500ms, 5s, 30m or 2h`,
    });
    return z.NEVER;
  }
  return value;
});

const durationList = z
  .string()
  .prefault('5s,30s,5m,30m,2h')
  .transform((raw) => raw.split(',').map((item) => item.trim()))
  .pipe(z.array(duration).min(1, 'must list at least one duration'));

const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

/** A share such as 0.5: more than 0, at most 1. */
const share = (fallback: number) =>
  z.coerce.number().gt(0, 'must be more than 0').max(1, 'must be at most 1').default(fallback);

/** The largest weight a tenant's lane may be given (ADR 0032). */
export const MAX_TENANT_WEIGHT = 100;

/** `ten_x=2,ten_y=0.5`: a weight per tenant id (ADR 0032); tenants not named weigh 1. */
const tenantWeights = commaList.transform((items, ctx) => {
  const weights: Record<string, number> = {};
  for (const item of items) {
    const match = /^(ten_[0-9a-z]{1,64})\s*=\s*(\d+(?:\.\d+)?)$/.exec(item);
    const weight = match ? Number(match[2]) : NaN;
    if (!match || !(weight > 0 && weight <= MAX_TENANT_WEIGHT)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not tenant_id=weight with a weight above 0 and at most ${MAX_TENANT_WEIGHT}, such as ten_x=2`,
      });
      continue;
    }
    if (match[1] in weights) {
      ctx.addIssue({ code: 'custom', message: `${match[1]} is given twice` });
    }
    weights[match[1]] = weight;
  }
  return weights;
});

/** Abandoned deliveries one `POST /v1/webhooks/{id}/recover` re-drives at most (ADR 0022). */
export const DEFAULT_RECOVER_REDRIVE_LIMIT = 10_000;

/** Deliveries one `POST /v1/webhooks/{id}/replay` re-sends at most (ADR 0029). */
export const DEFAULT_REPLAY_LIMIT = 10_000;

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().min(1).default('0.0.0.0'),
  API_PORT: port(8080),
  AUTH_PORT: port(8081),
  DELIVERY_PORT: port(8082),
  API_MANAGEMENT_PORT: port(9080),
  AUTH_MANAGEMENT_PORT: port(9081),
  HTTP_REQUEST_TIMEOUT: duration.prefault('30s'),
  HTTP_HEADERS_TIMEOUT: duration.prefault('10s'),
  HTTP_KEEP_ALIVE_TIMEOUT: duration.prefault('72s'),
  HTTP_MAX_CONNECTIONS: positiveInt(1024, 1_000_000),
  DATABASE_URL: z
    .string({ message: 'is required (postgres://user:password@host:5432/database)' })
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: commaList.default(['nats://127.0.0.1:4222']),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_TOKEN: z.string().min(1).optional(),
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  NATS_TLS_CERT_FILE: z.string().min(1).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).optional(),
  SECRET_ENCRYPTION_KEY: base64Key.optional(),
  SECRET_ENCRYPTION_PREVIOUS_KEYS: commaList.pipe(z.array(base64Key)),
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: cidrList,
  WEBHOOK_RECOVER_REDRIVE_LIMIT: positiveInt(DEFAULT_RECOVER_REDRIVE_LIMIT, 1_000_000),
  WEBHOOK_REPLAY_LIMIT: positiveInt(DEFAULT_REPLAY_LIMIT, 1_000_000),
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  NATS_SUBJECT_ROOT: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
      'must be NATS subject tokens such as svc or staging.svc',
    )
    .default('svc'),
  EVENTS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('SVC_EVENTS'),
  EVENTS_STREAM_REPLICAS: positiveInt(1, 5),
  EVENTS_STREAM_MAX_AGE: duration.prefault('7d'),
  DEAD_LETTER_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('SVC_DEAD_LETTER'),
  DELIVERY_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('svc-delivery'),
  DELIVERY_CONSUMER_ACK_WAIT: duration.prefault('60s'),
  DELIVERY_CONSUMER_MAX_ACK_PENDING: positiveInt(2000, 100_000),
  DELIVERY_TIMEOUT: duration.prefault('10s'),
  DELIVERY_RETRY_SCHEDULE: durationList,
  DELIVERY_MAX_ATTEMPTS: positiveInt(5, 20),
  DELIVERY_MAX_CONCURRENCY: positiveInt(256, 10_000),
  DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: positiveInt(8, 1000),
  DELIVERY_SCHEDULER_INTERVAL: duration.prefault('500ms'),
  DELIVERY_EXTRA_CA_FILE: z.string().min(1).optional(),
  INTAKE_LANES_MAX: z.coerce.number().int().min(0).max(256).default(16),
  INTAKE_HOT_TENANT_SHARE: share(0.5),
  INTAKE_LANE_CONCURRENCY_SHARE: share(0.75),
  TENANT_WEIGHTS: tenantWeights,
  DELIVERY_DATA_RETENTION: duration.prefault('30d'),
  DELIVERY_DATA_PARTITION_WIDTH: duration.prefault('1d'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  AUTH_ISSUER: z.url().default('http://localhost:8081'),
  AUTH_AUDIENCE: z.string().min(1).default('svc-api'),
  AUTH_JWKS_URL: z.url().optional(),
  AUTH_TRUSTED_PROXIES: cidrList,
  AUTH_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: positiveInt(5, 1000),
  AUTH_SIGN_IN_MAX_FAILURES_PER_ADDRESS: positiveInt(20, 100_000),
  AUTH_SIGN_IN_THROTTLE_WINDOW: duration.prefault('15m'),
  AUTH_SIGNING_KEYS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') {
        return undefined;
      }
      try {
        const keys = JSON.parse(raw) as unknown;
        if (
          Array.isArray(keys) &&
          keys.length > 0 &&
          keys.every((key) => typeof key === 'object' && key !== null)
        ) {
          return keys as Record<string, unknown>[];
        }
      } catch {
        // reported below
      }
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON array of private JWKs (EC P-256), the first one signing',
      });
      return z.NEVER;
    }),
});

export interface AppConfig {
  nodeEnv: 'development' | 'test' | 'production';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  host: string;
  /** Public ports of api and auth; the engine's only port (`delivery`) is its management port. */
  ports: { api: number; auth: number; delivery: number };
  /** Where api and auth serve /healthz, /readyz and /metrics (never on their public ports). */
  managementPorts: { api: number; auth: number };
  /** `url` may carry TLS settings pg reads itself: `?sslmode=verify-full&sslrootcert=/path/ca.pem`. */
  database: { url: string; poolSize: number };
  nats: NatsSettings;
  secrets: {
    /** Base64 keys; the first encrypts, all decrypt. */
    encryptionKeys: string[];
    usingDevelopmentKey: boolean;
  };
  webhooks: {
    allowedPrivateCidrs: string[];
    /** Abandoned deliveries one recover call re-drives at most; the answer says if more are left. */
    recoverRedriveLimit: number;
    /** Deliveries one replay call re-sends at most; the answer gives a cursor if more are left. */
    replayLimit: number;
  };
  http: {
    bodyLimitBytes: number;
    /** Whole request (headers and body) must arrive within this; then 408 and close. */
    requestTimeoutMs: number;
    /** Headers must arrive within this (at most requestTimeoutMs). */
    headersTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
    /** Connections per app and port beyond this are refused. */
    maxConnections: number;
  };
  jetstream: {
    /** Root of every subject: `<root>.events.<tenant_id>.<type>`. */
    subjectRoot: string;
    eventsStream: string;
    replicas: number;
    maxAgeMs: number;
    deadLetterStream: string;
    consumer: string;
    ackWaitMs: number;
    maxAckPending: number;
  };
  delivery: {
    timeoutMs: number;
    /** Delay before attempt n+1 after attempt n failed: entry n-1. */
    retryScheduleMs: number[];
    maxAttempts: number;
    maxConcurrency: number;
    maxConcurrencyPerEndpoint: number;
    schedulerIntervalMs: number;
    /** PEM file of CAs trusted besides the system ones (tests use their own CA). */
    extraCaFile?: string;
    /** Fairness between tenants: hot-tenant lanes (ADR 0032). */
    fairness: FairnessSettings;
  };
  /**
   * Delivery data (bodies, delivery events, deliveries, attempts) is kept this long after its
   * delivery was created, in partitions this wide, dropped whole (ADR 0023).
   */
  retention: { retentionMs: number; partitionWidthMs: number };
  tracing: { otlpEndpoint?: string };
  auth: {
    /** The `iss` of access tokens: the authorization server's base URL. */
    issuer: string;
    /** The `aud` of access tokens: this API. */
    audience: string;
    /** Where the API reads the token signing keys (cached; not fetched per request). */
    jwksUrl: string;
    /** Private JWKs; the first signs, all are published. Absent outside production: ephemeral. */
    signingKeys?: Record<string, unknown>[];
    /** Proxies whose X-Forwarded-For is believed (rightmost-untrusted rule); CIDR ranges. */
    trustedProxies: string[];
    /** Failed sign-ins allowed per account and per client address in one window (ADR 0017). */
    signInThrottle: {
      accountMaxFailures: number;
      addressMaxFailures: number;
      windowSeconds: number;
    };
  };
}

/**
 * Hot-tenant lanes (ADR 0032): a tenant holding a disproportionate share of the main intake while
 * it is saturated and behind gets a JetStream consumer of its own for its backlog, so that the
 * other tenants' events are not queued behind it.
 */
export interface FairnessSettings {
  /** Lanes open at once, across engines (each a durable consumer); 0 turns lanes off. */
  maxLanes: number;
  /** The share of the main intake's messages in hand one tenant must hold to get a lane. */
  hotTenantShare: number;
  /**
   * The most of DELIVERY_MAX_CONCURRENCY the lanes' attempts may hold together while other
   * attempts run or wait (the rest is kept for every other tenant's events and the retries).
   */
  laneConcurrencyShare: number;
  /**
   * A tenant's weight when its lane shares the engine with other lanes: each lane may hold
   * deliveries in proportion to its weight among the open lanes' (their sum counted as at least
   * 1, so a weight below 1 holds a lane back even alone); absent: 1.
   */
  tenantWeights: Record<string, number>;
}

/**
 * Where NATS is and how to authenticate: at most one of a credentials file (JWT and NKey, the
 * decentralised auth of an operator-mode server), an NKey seed file, a user and password, or a
 * token; TLS with the CA to trust and optionally a client certificate (libs/messaging builds the
 * @nats-io connect options from this: natsConnectOptions).
 */
export interface NatsSettings {
  servers: string[];
  credsFile?: string;
  nkeySeedFile?: string;
  user?: string;
  password?: string;
  token?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Outside production a fixed, publicly known key keeps local development working; start-up logs
 * a warning whenever it is in use.
 */
const DEVELOPMENT_ENCRYPTION_KEY = createHash('sha256')
  .update('svc-webhooks insecure development key')
  .digest('base64');

function parseEnvironment<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return parsed.data;
}

const NATS_KEYS = {
  NATS_URL: true,
  NATS_CREDS_FILE: true,
  NATS_NKEY_SEED_FILE: true,
  NATS_USER: true,
  NATS_PASSWORD: true,
  NATS_TOKEN: true,
  NATS_TLS_CA_FILE: true,
  NATS_TLS_CERT_FILE: true,
  NATS_TLS_KEY_FILE: true,
} as const;

function natsSettings(
  values: Partial<Record<Exclude<keyof typeof NATS_KEYS, 'NATS_URL'>, string>> & {
    NATS_URL: string[];
  },
): NatsSettings {
  const methods = [
    values.NATS_CREDS_FILE && 'NATS_CREDS_FILE',
    values.NATS_NKEY_SEED_FILE && 'NATS_NKEY_SEED_FILE',
    (values.NATS_USER || values.NATS_PASSWORD) && 'NATS_USER/NATS_PASSWORD',
    values.NATS_TOKEN && 'NATS_TOKEN',
  ].filter((method): method is string => Boolean(method));
  const problems: string[] = [];
  if (methods.length > 1) {
    problems.push(`NATS_*: choose one way to authenticate, not ${methods.join(' and ')}`);
  }
  if (Boolean(values.NATS_USER) !== Boolean(values.NATS_PASSWORD)) {
    problems.push('NATS_USER, NATS_PASSWORD: give both or neither');
  }
  if (Boolean(values.NATS_TLS_CERT_FILE) !== Boolean(values.NATS_TLS_KEY_FILE)) {
    problems.push('NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE: a client certificate needs its key');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const tls =
    values.NATS_TLS_CA_FILE || values.NATS_TLS_CERT_FILE
      ? {
          ...(values.NATS_TLS_CA_FILE ? { caFile: values.NATS_TLS_CA_FILE } : {}),
          ...(values.NATS_TLS_CERT_FILE
            ? { certFile: values.NATS_TLS_CERT_FILE, keyFile: values.NATS_TLS_KEY_FILE }
            : {}),
        }
      : undefined;
  return {
    servers: values.NATS_URL,
    ...(values.NATS_CREDS_FILE ? { credsFile: values.NATS_CREDS_FILE } : {}),
    ...(values.NATS_NKEY_SEED_FILE ? { nkeySeedFile: values.NATS_NKEY_SEED_FILE } : {}),
    ...(values.NATS_USER ? { user: values.NATS_USER, password: values.NATS_PASSWORD } : {}),
    ...(values.NATS_TOKEN ? { token: values.NATS_TOKEN } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** Only what a NATS publisher needs (`svc events publish`): no database, no keys. */
export function loadNatsConfig(env: NodeJS.ProcessEnv = process.env): {
  nats: AppConfig['nats'];
  subjectRoot: string;
} {
  const values = parseEnvironment(
    environmentSchema.pick({ ...NATS_KEYS, NATS_SUBJECT_ROOT: true }),
    env,
  );
  return { nats: natsSettings(values), subjectRoot: values.NATS_SUBJECT_ROOT };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const values = parseEnvironment(environmentSchema, env);
  if (
    values.DELIVERY_DATA_PARTITION_WIDTH < 60_000 ||
    values.DELIVERY_DATA_PARTITION_WIDTH > values.DELIVERY_DATA_RETENTION
  ) {
    throw new ConfigError([
      'DELIVERY_DATA_PARTITION_WIDTH: must be at least 1m and at most DELIVERY_DATA_RETENTION',
    ]);
  }
  if (values.NODE_ENV === 'production' && !values.SECRET_ENCRYPTION_KEY) {
    throw new ConfigError([
      'SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production; it encrypts webhook secrets at rest (generate one with `openssl rand -base64 32`)',
    ]);
  }
  if (values.HTTP_HEADERS_TIMEOUT > values.HTTP_REQUEST_TIMEOUT) {
    throw new ConfigError(['HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT']);
  }
  const activeKey = values.SECRET_ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY;
  return {
    nodeEnv: values.NODE_ENV,
    logLevel: values.LOG_LEVEL,
    host: values.HOST,
    ports: { api: values.API_PORT, auth: values.AUTH_PORT, delivery: values.DELIVERY_PORT },
    managementPorts: { api: values.API_MANAGEMENT_PORT, auth: values.AUTH_MANAGEMENT_PORT },
    database: { url: values.DATABASE_URL, poolSize: values.DATABASE_POOL_SIZE },
    nats: natsSettings(values),
    secrets: {
      encryptionKeys: [activeKey, ...values.SECRET_ENCRYPTION_PREVIOUS_KEYS],
      usingDevelopmentKey: values.SECRET_ENCRYPTION_KEY === undefined,
    },
    webhooks: {
      allowedPrivateCidrs: values.WEBHOOK_ALLOWED_PRIVATE_CIDRS,
      recoverRedriveLimit: values.WEBHOOK_RECOVER_REDRIVE_LIMIT,
      replayLimit: values.WEBHOOK_REPLAY_LIMIT,
    },
    http: {
      bodyLimitBytes: values.API_BODY_LIMIT_BYTES,
      requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT,
      headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT,
      keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT,
      maxConnections: values.HTTP_MAX_CONNECTIONS,
    },
    jetstream: {
      subjectRoot: values.NATS_SUBJECT_ROOT,
      eventsStream: values.EVENTS_STREAM,
      replicas: values.EVENTS_STREAM_REPLICAS,
      maxAgeMs: values.EVENTS_STREAM_MAX_AGE,
      deadLetterStream: values.DEAD_LETTER_STREAM,
      consumer: values.DELIVERY_CONSUMER,
      ackWaitMs: values.DELIVERY_CONSUMER_ACK_WAIT,
      maxAckPending: values.DELIVERY_CONSUMER_MAX_ACK_PENDING,
    },
    delivery: {
      timeoutMs: values.DELIVERY_TIMEOUT,
      retryScheduleMs: values.DELIVERY_RETRY_SCHEDULE,
      maxAttempts: values.DELIVERY_MAX_ATTEMPTS,
      maxConcurrency: values.DELIVERY_MAX_CONCURRENCY,
      maxConcurrencyPerEndpoint: values.DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT,
      schedulerIntervalMs: values.DELIVERY_SCHEDULER_INTERVAL,
      extraCaFile: values.DELIVERY_EXTRA_CA_FILE,
      fairness: {
        maxLanes: values.INTAKE_LANES_MAX,
        hotTenantShare: values.INTAKE_HOT_TENANT_SHARE,
        laneConcurrencyShare: values.INTAKE_LANE_CONCURRENCY_SHARE,
        tenantWeights: values.TENANT_WEIGHTS,
      },
    },
    retention: {
      retentionMs: values.DELIVERY_DATA_RETENTION,
      partitionWidthMs: values.DELIVERY_DATA_PARTITION_WIDTH,
    },
    tracing: { otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT },
    auth: {
      issuer: values.AUTH_ISSUER.replace(/\/$/, ''),
      audience: values.AUTH_AUDIENCE,
      jwksUrl:
        values.AUTH_JWKS_URL ?? `${values.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`,
      signingKeys: values.AUTH_SIGNING_KEYS,
      trustedProxies: values.AUTH_TRUSTED_PROXIES,
      signInThrottle: {
        accountMaxFailures: values.AUTH_SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
        addressMaxFailures: values.AUTH_SIGN_IN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: Math.ceil(values.AUTH_SIGN_IN_THROTTLE_WINDOW / 1000),
      },
    },
  };
}
