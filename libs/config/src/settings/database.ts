import { z } from 'zod';
import { integer, setting } from '../kinds';
import { section } from '../section';

export interface DatabaseSettings {
  /** May carry TLS settings pg reads itself: `?sslmode=verify-full&sslrootcert=/path/ca.pem`. */
  url: string;
  /** Connections per app. */
  poolSize: number;
}

export const database = section({
  name: 'database',
  variables: {
    DATABASE_URL: setting(
      {
        schema: z
          .string({ message: 'is required (postgres://user:password@host:5432/database)' })
          .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
        default: '(required; `npm start` provides one)',
        format: '`postgres://` URL',
      },
      'PostgreSQL URL; over TLS add `?sslmode=verify-full&sslrootcert=/path/ca.pem`',
    ),
    DATABASE_POOL_SIZE: setting(integer(10, 1, 200), 'connections per app'),
  },
  build: (values): { database: DatabaseSettings } => ({
    database: { url: values.DATABASE_URL, poolSize: values.DATABASE_POOL_SIZE },
  }),
});
