import { Logger } from '@nestjs/common';
import { ReadinessCheck, withTimeout } from '@svc/http';
import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryRunnerAlreadyReleasedError } from 'typeorm';

/**
 * Whether the engine can write its records. While the database fails, the engine takes no new
 * message and starts no attempt (each would be a POST whose record cannot be written, made again
 * after the outage), keeps the records it holds, and reports not-ready; a probe every second
 * notices the database's return and work resumes by itself.
 */
export class RecordingHealth implements ReadinessCheck {
  readonly name = 'recording';
  private readonly logger = new Logger('RecordingHealth');
  private failingSince: Date | null = null;
  private lastError = '';
  private waiters: (() => void)[] = [];
  private probing: Promise<void> | undefined;
  private stopped = false;
  private probe: () => Promise<unknown> = () => Promise.reject(new Error('no probe yet'));

  /** `probeIntervalMs`: while commits fail, how often the database is asked whether it answers. */
  constructor(private readonly probeIntervalMs: number) {}

  /** How to ask the database whether it answers (set once the connection exists). */
  probeWith(probe: () => Promise<unknown>): void {
    this.probe = probe;
  }

  /**
   * Listens to the connection pool: an idle connection cut (a failover, a stopped server, an
   * administrator's cut) means the next statements will fail, so work stops at once instead of at
   * the first failed write, by which time the attempts already past their checks have been POSTed
   * and would be sent again. A lone dropped connection pauses work for one probe interval.
   */
  watchConnections(pool: Pick<EventEmitter, 'on'>): void {
    pool.on('error', (error: unknown) => {
      if (isDatabaseUnavailable(error)) {
        this.failed(error);
      }
    });
  }

  get healthy(): boolean {
    return this.failingSince === null;
  }

  /**
   * Resolves at once while writes work, otherwise when they work again; rejects when the engine
   * stops first (the work then goes back to JetStream or to the schedule, unstarted).
   */
  async whenHealthy(): Promise<void> {
    if (!this.healthy) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    if (!this.healthy) {
      throw new Error('stopping while the database is away: this work was not started');
    }
  }

  /** A write (or a read the pipeline needs) failed for another reason than a conflict. */
  failed(error: unknown): void {
    this.lastError = (error as Error)?.message ?? String(error);
    if (this.failingSince !== null) {
      return;
    }
    this.failingSince = new Date();
    this.logger.error(
      `the database fails (${this.lastError}): taking no new work until it is back`,
    );
    this.probing ??= this.probeUntilBack().finally(() => (this.probing = undefined));
  }

  /** A write succeeded: whatever failed before works again. */
  succeeded(): void {
    if (this.failingSince === null) {
      return;
    }
    const seconds = ((Date.now() - this.failingSince.getTime()) / 1000).toFixed(1);
    this.failingSince = null;
    this.logger.log(`the database is back after ${seconds} s: resuming`);
    this.waiters.splice(0).forEach((wake) => wake());
  }

  check(): Promise<void> {
    return this.failingSince === null
      ? Promise.resolve()
      : Promise.reject(
          new Error(
            `database writes fail since ${this.failingSince.toISOString()} (${this.lastError})`,
          ),
        );
  }

  /** For shutdown: no more probing; waiters are released so that they can give up. */
  stop(): void {
    this.stopped = true;
    this.waiters.splice(0).forEach((wake) => wake());
  }

  private async probeUntilBack(): Promise<void> {
    // Not at once: right after a cut, a pooled connection the server has not ended yet would
    // answer, and work would resume into the outage.
    while (this.failingSince !== null && !this.stopped) {
      await sleep(this.probeIntervalMs);
      try {
        await withTimeout(this.probe(), 2000, 'PostgreSQL');
        this.succeeded();
      } catch (error) {
        this.lastError = (error as Error).message;
      }
    }
  }
}

/** SQLSTATE classes and socket errors that mean "the database is not there", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  // A standby not yet promoted, or a primary demoted, answers writes with this: the database
  // cannot take records now, and the work must wait for it rather than count as failing (a
  // message failing for another reason is parked after a few deliveries, ADR 0041).
  '25006', // read_only_sql_transaction
]);

/**
 * pg's socket and server errors, and TypeORM's own when the connection died inside a transaction
 * (it releases the query runner, and the next statement reports that).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof QueryRunnerAlreadyReleasedError) {
    // A transaction's statement after its connection died: TypeORM released the query runner.
    return true;
  }
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) {
    return true;
  }
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|does not allow connections|is not currently accepting connections|query runner was already released|the database system is (starting up|shutting down)/i.test(
    message,
  );
}
