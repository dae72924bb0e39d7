import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { purgeExpiredAuthState } from '@svc/oauth';
import { DataSource } from 'typeorm';

/** Every ten minutes, any replica: the deletes are idempotent, so no coordination is needed. */
export const SWEEP_INTERVAL_MS = 600_000;

@Injectable()
export class ExpiredStateSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpiredStateSweeper.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    try {
      const deleted = await purgeExpiredAuthState(this.dataSource);
      if (deleted > 0) {
        this.logger.log(`deleted ${deleted} expired codes, tokens, sessions and throttle rows`);
      }
    } catch (error) {
      this.logger.warn(`expired-state sweep failed: ${(error as Error).message}`);
    }
  }
}
