import {
  AttemptResult,
  errorKindOf,
  parseRetryAfter,
  resultOfStatus,
  RETRY_AFTER_STATUSES,
} from '@svc/deliveries';
import type { Dispatcher } from 'undici';
import { BlockedAddressError } from './safe-connector';

/** How much of a response body the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 512;
/** Past this a response body is not read further: the receiver is misbehaving. */
export const RESPONSE_READ_LIMIT_BYTES = 1024 * 1024;

/**
 * One attempt's exchange: reads the answer to its end (it must be complete to count), keeps its
 * first bytes, and settles once, on the answer's end, an error or the deadline, whichever comes
 * first. The deadline covers connecting too: the controller arrives only once a socket is had.
 */
export class AttemptExchange implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private statusCode = 0;
  private retryAfter: string | undefined;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private receivedBytes = 0;

  constructor(
    timeoutMs: number,
    private readonly done: (result: AttemptResult, error?: unknown) => void,
  ) {
    this.timer = setTimeout(
      () => this.fail(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    );
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) {
      controller.abort(new Error('the attempt ended before its request started'));
    }
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.receivedBytes += chunk.length;
    if (this.keptBytes < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    if (this.receivedBytes > RESPONSE_READ_LIMIT_BYTES) {
      this.answered();
      controller.abort(new Error('response body past the read limit'));
    }
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // undici has ended the request itself: nothing to abort.
    this.failed(error);
  }

  /** Ends the attempt from outside undici (the deadline, a request that could not be made). */
  fail(error: unknown): void {
    if (this.failed(error)) {
      this.controller?.abort(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Settles as failed; false if the attempt had its outcome already. */
  private failed(error: unknown): boolean {
    if (this.settle()) {
      this.done(
        {
          succeeded: false,
          statusCode: null,
          errorKind: errorKindOf(error),
          // The tenant sees only "blocked address" (the detail is for operators).
          errorMessage: findBlockedAddress(error)?.message ?? describe(error),
          latencyMs: this.elapsed(),
          responseExcerpt: null,
        },
        error,
      );
      return true;
    }
    return false;
  }

  private answered(): void {
    if (!this.settle()) {
      return;
    }
    const excerpt = this.keptBytes > 0 ? Buffer.concat(this.kept).toString('utf8') : null;
    const result = resultOfStatus(this.statusCode, this.elapsed(), excerpt);
    if (RETRY_AFTER_STATUSES.includes(this.statusCode)) {
      result.retryAfterMs = parseRetryAfter(this.retryAfter, new Date());
    }
    this.done(result);
  }

  /** True the first time only: an attempt has one outcome. */
  private settle(): boolean {
    if (this.settled) {
      return false;
    }
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }
}

export function findBlockedAddress(error: unknown): BlockedAddressError | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof BlockedAddressError) {
      return current;
    }
    current = current.cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 3) {
    parts.push(current.message);
    current = current.cause;
  }
  return (parts.join(': ') || String(error)).slice(0, 300);
}
