import { Logger } from '@nestjs/common';
import type { SigningKeyStore } from '@svc/signing-keys';
import type { KeyObject } from 'node:crypto';

/** A rotation reaches every engine within this (ADR 0044); the overlap covers the delay. */
export const KEYRING_REFRESH_MS = 60_000;

/**
 * The Ed25519 keys this engine signs `v1a` entries with (ADR 0044): read from the store at start
 * (making the first key if there is none) and every minute, decrypted once and held in memory
 * only. Signing reads the held keys: no database round trip per delivery.
 */
export class SigningKeyring {
  private readonly logger = new Logger('SigningKeyring');
  private keys: KeyObject[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<SigningKeyStore, 'ensureCurrentKey' | 'signingKeys'>,
    private readonly refreshMs = KEYRING_REFRESH_MS,
  ) {}

  async start(): Promise<void> {
    await this.store.ensureCurrentKey();
    await this.refresh();
    this.timer = setInterval(() => {
      // A failed read keeps the keys held: they were right a minute ago, and the overlap covers it.
      this.refresh().catch((error: unknown) =>
        this.logger.warn(`cannot refresh the signing keys: ${(error as Error).message}`),
      );
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  async refresh(now = new Date()): Promise<void> {
    const keys = await this.store.signingKeys(now, (kid) =>
      // The kid only: never key material in a log.
      this.logger.error(`signing key ${kid} cannot be decrypted with the configured keys`),
    );
    this.keys = keys.map((key) => key.privateKey);
  }

  /** The private keys that sign now, newest first; empty before start or if none decrypts. */
  currentSigningKeys(): KeyObject[] {
    return this.keys;
  }
}
