import { createHash } from 'node:crypto';
import { encryptionKey, encryptionKeys, setting } from '../kinds';
import { section } from '../section';
import { NODE_ENV } from './runtime';

export interface SecretSettings {
  /** Base64 keys; the first encrypts, all decrypt. */
  encryptionKeys: string[];
  usingDevelopmentKey: boolean;
}

/**
 * Outside production a fixed, publicly known key keeps local development working; start-up logs
 * a warning whenever it is in use.
 */
const DEVELOPMENT_ENCRYPTION_KEY = createHash('sha256')
  .update('svc-webhooks insecure development key')
  .digest('base64');

/** The keys that encrypt webhook secrets at rest (ADR 0007, 0026). */
export const secrets = section({
  name: 'secrets',
  variables: {
    NODE_ENV,
    SECRET_ENCRYPTION_KEY: setting(
      encryptionKey(),
      'encrypts webhook secrets at rest (`openssl rand -base64 32`); outside production a public development key stands in',
      { default: 'none (required in production)' },
    ),
    SECRET_ENCRYPTION_PREVIOUS_KEYS: setting(
      encryptionKeys(),
      'older keys, still used to decrypt after a rotation',
    ),
  },
  check: (values) =>
    values.NODE_ENV === 'production' && !values.SECRET_ENCRYPTION_KEY
      ? [
          'SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production; it encrypts webhook secrets at rest (generate one with `openssl rand -base64 32`)',
        ]
      : [],
  build: (values): { secrets: SecretSettings } => ({
    secrets: {
      encryptionKeys: [
        values.SECRET_ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY,
        ...values.SECRET_ENCRYPTION_PREVIOUS_KEYS,
      ],
      usingDevelopmentKey: values.SECRET_ENCRYPTION_KEY === undefined,
    },
  }),
});
