import { AttemptResult } from '@svc/deliveries';
import type { Dispatcher } from 'undici';
import {
  AttemptExchange,
  RESPONSE_EXCERPT_BYTES,
  RESPONSE_READ_LIMIT_BYTES,
} from './attempt-exchange';
import { BlockedAddressError } from './safe-connector';

class FakeController implements Dispatcher.DispatchController {
  abortedWith: Error | null = null;
  get aborted() {
    return this.abortedWith !== null;
  }
  get paused() {
    return false;
  }
  get reason() {
    return this.abortedWith;
  }
  abort(reason: Error) {
    this.abortedWith = reason;
  }
  pause() {}
  resume() {}
}

describe('AttemptExchange', () => {
  let outcomes: Array<{ result: AttemptResult; error?: unknown }>;
  let controller: FakeController;
  const exchange = (timeoutMs = 10_000) =>
    new AttemptExchange(timeoutMs, (result, error) => outcomes.push({ result, error }));

  beforeEach(() => {
    outcomes = [];
    controller = new FakeController();
  });
  afterEach(() => jest.useRealTimers());

  it('settles on the end of a 2xx answer with the first bytes of its body', () => {
    const attempt = exchange();
    attempt.onRequestStart(controller);
    attempt.onResponseStart(controller, 202, {});
    attempt.onResponseData(controller, Buffer.from('{"ok":'));
    attempt.onResponseData(controller, Buffer.from('true}'));
    expect(outcomes).toHaveLength(0);
    attempt.onResponseEnd();
    expect(outcomes).toEqual([
      {
        result: expect.objectContaining({
          succeeded: true,
          statusCode: 202,
          responseExcerpt: '{"ok":true}',
        }),
        error: undefined,
      },
    ]);
  });

  it('keeps only the excerpt of a long body, and stops reading past the limit', () => {
    const attempt = exchange();
    attempt.onRequestStart(controller);
    attempt.onResponseStart(controller, 500, {});
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let read = 0; read <= RESPONSE_READ_LIMIT_BYTES && outcomes.length === 0;) {
      attempt.onResponseData(controller, chunk);
      read += chunk.length;
    }
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0].result).toMatchObject({ succeeded: false, statusCode: 500 });
    expect(outcomes[0].result.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
    expect(controller.aborted).toBe(true);
  });

  it("takes a 429's Retry-After", () => {
    const attempt = exchange();
    attempt.onRequestStart(controller);
    attempt.onResponseStart(controller, 429, { 'retry-after': '7' });
    attempt.onResponseEnd();
    expect(outcomes[0].result).toMatchObject({ statusCode: 429, retryAfterMs: 7000 });
  });

  it('times out from the start, connecting included, and aborts a request that starts later', () => {
    jest.useFakeTimers();
    const attempt = exchange(1000);
    jest.advanceTimersByTime(999);
    expect(outcomes).toHaveLength(0);
    jest.advanceTimersByTime(1);
    expect(outcomes[0].result).toMatchObject({
      succeeded: false,
      statusCode: null,
      errorKind: 'timeout',
    });
    attempt.onRequestStart(controller);
    expect(controller.aborted).toBe(true);
  });

  it('times out while the body is still coming, and ignores what comes after', () => {
    jest.useFakeTimers();
    const attempt = exchange(1000);
    attempt.onRequestStart(controller);
    attempt.onResponseStart(controller, 200, {});
    attempt.onResponseData(controller, Buffer.from('partial'));
    jest.advanceTimersByTime(1000);
    expect(controller.aborted).toBe(true);
    attempt.onResponseError(controller, new Error('aborted'));
    attempt.onResponseEnd();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0].result).toMatchObject({ succeeded: false, errorKind: 'timeout' });
  });

  it('tells the tenant only "blocked address" and hands the detail to the caller', () => {
    const attempt = exchange();
    attempt.onRequestStart(controller);
    const blocked = new BlockedAddressError('internal.example', ['10.0.0.5']);
    attempt.onResponseError(
      controller,
      Object.assign(new Error('connect failed'), { cause: blocked }),
    );
    expect(outcomes[0].result).toMatchObject({
      errorKind: 'blocked_address',
      errorMessage: 'blocked address',
    });
    expect(outcomes[0].error).toBeInstanceOf(Error);
    // undici ended that request itself: there is nothing left to abort.
    expect(controller.aborted).toBe(false);
  });

  it('describes other errors with their causes', () => {
    const attempt = exchange();
    attempt.fail(
      Object.assign(new Error('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
          code: 'ECONNREFUSED',
        }),
      }),
    );
    expect(outcomes[0].result).toMatchObject({
      errorKind: 'connection_refused',
      errorMessage: 'fetch failed: connect ECONNREFUSED 127.0.0.1:9',
    });
  });
});
