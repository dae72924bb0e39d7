import { createHash } from 'node:crypto';
import * as ipaddr from 'ipaddr.js';
import { z } from 'zod';

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

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().min(1).default('0.0.0.0'),
  API_PORT: port(8080),
  AUTH_PORT: port(8081),
  DELIVERY_PORT: port(8082),
  DATABASE_URL: z
    .string({ message: 'is required (postgres://user:password@host:5432/database)' })
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  NATS_URL: commaList.default(['nats://127.0.0.1:4222']),
  SECRET_ENCRYPTION_KEY: base64Key.optional(),
  SECRET_ENCRYPTION_PREVIOUS_KEYS: commaList.pipe(z.array(base64Key)),
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: cidrList,
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
});

export interface AppConfig {
  nodeEnv: 'development' | 'test' | 'production';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  host: string;
  ports: { api: number; auth: number; delivery: number };
  database: { url: string; poolSize: number };
  nats: { servers: string[] };
  secrets: {
    /** Base64 keys; the first encrypts, all decrypt. */
    encryptionKeys: string[];
    usingDevelopmentKey: boolean;
  };
  webhooks: { allowedPrivateCidrs: string[] };
  http: { bodyLimitBytes: number };
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const values = parsed.data;
  if (values.NODE_ENV === 'production' && !values.SECRET_ENCRYPTION_KEY) {
    throw new ConfigError([
      'SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production; it encrypts webhook secrets at rest (generate one with `openssl rand -base64 32`)',
    ]);
  }
  const activeKey = values.SECRET_ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY;
  return {
    nodeEnv: values.NODE_ENV,
    logLevel: values.LOG_LEVEL,
    host: values.HOST,
    ports: { api: values.API_PORT, auth: values.AUTH_PORT, delivery: values.DELIVERY_PORT },
    database: { url: values.DATABASE_URL, poolSize: values.DATABASE_POOL_SIZE },
    nats: { servers: values.NATS_URL },
    secrets: {
      encryptionKeys: [activeKey, ...values.SECRET_ENCRYPTION_PREVIOUS_KEYS],
      usingDevelopmentKey: values.SECRET_ENCRYPTION_KEY === undefined,
    },
    webhooks: { allowedPrivateCidrs: values.WEBHOOK_ALLOWED_PRIVATE_CIDRS },
    http: { bodyLimitBytes: values.API_BODY_LIMIT_BYTES },
  };
}
