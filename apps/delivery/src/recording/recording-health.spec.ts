import { EventEmitter } from 'node:events';
import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable, RecordingHealth } from './recording-health';

const PROBE_INTERVAL_MS = 1000;

describe('RecordingHealth', () => {
  it('holds work while writes fail and lets it go when a write succeeds', async () => {
    const health = new RecordingHealth(PROBE_INTERVAL_MS);
    health.probeWith(() => Promise.reject(new Error('still away')));
    health.failed(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    let resumed = false;
    const waiting = health.whenHealthy().then(() => (resumed = true));

    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(false);
    await expect(health.check()).rejects.toThrow(/database writes fail since .*ECONNREFUSED/);

    health.succeeded();
    await waiting;
    expect(resumed).toBe(true);
    await expect(health.check()).resolves.toBeUndefined();
    health.stop();
  });

  it('notices by its probe that the database is back', async () => {
    const health = new RecordingHealth(PROBE_INTERVAL_MS);
    let answers = false;
    health.probeWith(() => (answers ? Promise.resolve() : Promise.reject(new Error('away'))));
    health.failed(new Error('Connection terminated unexpectedly'));
    answers = true;

    await health.whenHealthy();
    expect(health.healthy).toBe(true);
  });

  it('stops work as soon as the pool loses an idle connection to an outage', () => {
    const pool = new EventEmitter();
    const health = new RecordingHealth(PROBE_INTERVAL_MS);
    let probes = 0;
    health.probeWith(() => {
      probes += 1;
      return Promise.reject(new Error('away'));
    });
    health.watchConnections(pool);

    pool.emit('error', Object.assign(new Error('syntax'), { code: '42601' }));
    expect(health.healthy).toBe(true);

    pool.emit(
      'error',
      Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      }),
    );
    expect(health.healthy).toBe(false);
    expect(probes).toBe(0);
    health.stop();
  });

  it('turns waiting work away when the engine stops during an outage', async () => {
    const health = new RecordingHealth(PROBE_INTERVAL_MS);
    health.probeWith(() => Promise.reject(new Error('away')));
    health.failed(new Error('Connection terminated'));
    const waiting = health.whenHealthy();

    health.stop();

    await expect(waiting).rejects.toThrow(/not started/);
  });
});

describe('isDatabaseUnavailable', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: '57P01' }, true],
    [{ code: '08006' }, true],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, true],
    [new Error('Connection terminated unexpectedly'), true],
    [new QueryRunnerAlreadyReleasedError(), true],
    [new Error('timeout exceeded when trying to connect'), true],
    [{ code: '55000', message: 'database "svc" is not currently accepting connections' }, true],
    [
      new Error(
        'Database connection provided by a query runner was already released, cannot continue to use its querying methods anymore.',
      ),
      true,
    ],
    [{ code: '23505', message: 'duplicate key value' }, false],
    [{ code: '42P01', message: 'relation "x" does not exist' }, false],
    [new Error('invalid input syntax'), false],
  ])('%p → %p', (error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});
