import { z } from 'zod';
import { setting } from '../kinds';
import { section } from '../section';

/** An empty variable counts as unset, so that `DATABASE_URL= npm start` means "embedded". */
const unlessEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((raw) => (typeof raw === 'string' && raw.trim() === '' ? undefined : raw), schema);

function localPort(fallback: number) {
  return {
    schema: unlessEmpty(
      z.coerce
        .number({ message: 'must be a port number between 1 and 65535' })
        .int('must be a port number between 1 and 65535')
        .min(1, 'must be a port number between 1 and 65535')
        .max(65535, 'must be a port number between 1 and 65535')
        .default(fallback),
    ),
    default: `\`${fallback}\``,
    format: 'integer, 1 to 65535',
  };
}

export interface LocalStackVariables {
  postgresPort: number;
  natsPort: number;
  natsProbeUrl: string;
  /** As given (relative to the folder the command runs in); absent: `.data`. */
  dataDir?: string;
}

/** Read by `npm start` only (tools/local-stack), and LOCAL_DATA_DIR by the CLI too. */
export const localStack = section({
  name: 'local stack',
  variables: {
    LOCAL_POSTGRES_PORT: setting(
      localPort(5433),
      'port of the embedded PostgreSQL (used when `DATABASE_URL` is unset)',
    ),
    LOCAL_NATS_PROBE_URL: setting(
      {
        schema: unlessEmpty(z.string().trim().default('nats://127.0.0.1:4222')),
        default: '`nats://127.0.0.1:4222`',
        format: 'URL',
      },
      'where a running NATS is looked for before starting one',
    ),
    LOCAL_NATS_PORT: setting(
      localPort(4223),
      'port of the `nats-server` started when no NATS answers',
    ),
    LOCAL_DATA_DIR: setting(
      {
        schema: unlessEmpty(z.string().trim().optional()),
        default: '`.data`',
        format: 'folder path',
      },
      'the local state: embedded database, NATS store, key, local CA (the CLI reads it too)',
    ),
  },
  build: (values): { local: LocalStackVariables } => ({
    local: {
      postgresPort: values.LOCAL_POSTGRES_PORT,
      natsPort: values.LOCAL_NATS_PORT,
      natsProbeUrl: values.LOCAL_NATS_PROBE_URL,
      ...(values.LOCAL_DATA_DIR ? { dataDir: values.LOCAL_DATA_DIR } : {}),
    },
  }),
});
