import { Command } from 'commander';
import { openDataSource } from '@svc/database';
import { SecretCipher } from '@svc/secrets';
import { JWKS_MAX_AGE_SECONDS, SigningKeyInfo, SigningKeyStore } from '@svc/signing-keys';
import ms from 'ms';
import { CliError, CliIo, cliSecretsConfig, report } from '../cli-context';

const DEFAULT_OVERLAP = '24h';
/** A week: longer than any receiver's cache, short enough that a forgotten old key goes away. */
const MAX_OVERLAP_MS = 7 * 86_400_000;

/** Only kids and dates: the private keys never leave the database sealed, nor reach a terminal. */
const view = (key: SigningKeyInfo) => ({
  kid: key.kid,
  created_at: key.createdAt.toISOString(),
  signs_until: key.signsUntil?.toISOString() ?? null,
  published_until: key.publishedUntil?.toISOString() ?? null,
});

function overlapMsOf(raw: string): number {
  const trimmed = raw.trim();
  const value = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(trimmed) ? ms(trimmed as ms.StringValue) : NaN;
  if (!Number.isFinite(value) || value < 0 || value > MAX_OVERLAP_MS) {
    throw new CliError(
      `--overlap "${raw}" is not a duration from 0s to 7d such as 30m, 24h or 2d`,
      2,
    );
  }
  return value;
}

/** The store over the configured database, sealing with the configured encryption key. */
async function withStore<T>(io: CliIo, work: (store: SigningKeyStore) => Promise<T>): Promise<T> {
  const config = cliSecretsConfig(io);
  const dataSource = await openDataSource({ url: config.database.url, poolSize: 2 });
  try {
    return await work(
      new SigningKeyStore(dataSource, new SecretCipher(config.secrets.encryptionKeys)),
    );
  } finally {
    await dataSource.destroy();
  }
}

function keyLine(key: SigningKeyInfo, now: Date): string {
  const state =
    key.signsUntil === null
      ? 'current'
      : key.signsUntil > now
        ? `signing until ${key.signsUntil.toISOString()}`
        : key.publishedUntil !== null && key.publishedUntil > now
          ? `published until ${key.publishedUntil.toISOString()}`
          : 'retired';
  return `${key.kid}  created ${key.createdAt.toISOString()}  ${state}`;
}

export function signingKeysCommand(io: CliIo, json: () => boolean): Command {
  const keys = new Command('signing-keys').description(
    "manage the deployment's Ed25519 webhook signing keys (ADR 0044)",
  );
  keys
    .command('rotate')
    .description(
      'make a new current signing key; the previous one keeps signing for the overlap and stays published for the JWKS cache time after it',
    )
    .option('--overlap <duration>', 'how long the previous key keeps signing', DEFAULT_OVERLAP)
    .action(async (options: { overlap: string }) => {
      const overlapMs = overlapMsOf(options.overlap);
      const rotation = await withStore(io, (store) =>
        store.rotate(overlapMs, JWKS_MAX_AGE_SECONDS * 1000),
      );
      report(io, json(), { current: view(rotation.current), retired: rotation.retired.map(view) }, [
        `new current signing key ${rotation.current.kid}`,
        ...rotation.retired.map(
          (key) =>
            `${key.kid} signs until ${key.signsUntil?.toISOString()} and stays published until ${key.publishedUntil?.toISOString()}`,
        ),
        'Engines sign with the new key within a minute; during the overlap with both.',
      ]);
    });
  keys
    .command('list')
    .description('list the signing keys, newest first: kids and dates, never key material')
    .action(async () => {
      const listed = await withStore(io, (store) => store.list());
      const now = new Date();
      report(
        io,
        json(),
        { data: listed.map(view) },
        listed.length > 0
          ? listed.map((key) => keyLine(key, now))
          : ['no signing key yet: the first is made by an engine, the JWKS route or rotate'],
      );
    });
  return keys;
}
