import { Logger } from '@nestjs/common';
import { decideDeferred, DeliveryState } from '@svc/deliveries';
import { attemptedEvent, deliveryIdentity, deliveryState, T0 } from '@svc/testing/builders';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import { ENGINE_TUNING } from '../../apps/delivery/src/engine-tuning';
import type { DeliveryCommit } from '../../apps/delivery/src/recording/delivery-commit';
import {
  DeliveryRecorder,
  RecorderOptions,
} from '../../apps/delivery/src/recording/delivery-recorder';
import type { RecordWriter, WrittenBatch } from '../../apps/delivery/src/recording/record-writer';
import { until } from './fakes/intake-fakes';

/**
 * The recorder's group commit, races and outage handling (ADR 0016, 0036) over a fake writer:
 * what only a real PostgreSQL under racing engines, or the fault suite, showed before.
 */

class ConflictError extends Error {}

/** Writes in memory; a batch holding a delivery of `conflicting` throws a conflict. */
class FakeRecordWriter implements RecordWriter {
  readonly batches: string[][] = [];
  readonly conflicting = new Set<string>();
  readonly winners = new Map<string, DeliveryState>();
  failure: Error | undefined;

  write(commits: DeliveryCommit[]): Promise<WrittenBatch> {
    this.batches.push(commits.map((commit) => commit.deliveryId));
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    if (commits.some((commit) => this.conflicting.has(commit.deliveryId))) {
      return Promise.reject(new ConflictError('another writer appended first'));
    }
    const states = new Map(
      commits.map((commit) => [
        commit.deliveryId,
        deliveryState({ id: commit.deliveryId, version: (commit.before?.version ?? 0) + 1 }),
      ]),
    );
    return Promise.resolve({ states, transitions: [] });
  }

  winner(deliveryId: string): Promise<DeliveryState | null> {
    return Promise.resolve(this.winners.get(deliveryId) ?? null);
  }

  isConflict(error: unknown): boolean {
    return error instanceof ConflictError;
  }
}

class FakeHealth {
  healthy = true;
  failures = 0;

  failed(): void {
    this.healthy = false;
    this.failures += 1;
  }

  succeeded(): void {
    this.healthy = true;
  }
}

function attemptCommit(deliveryId: string, endpointId = 'wh_1'): DeliveryCommit {
  const identity = deliveryIdentity({ delivery_id: deliveryId, endpoint_id: endpointId });
  return {
    deliveryId,
    before: null,
    event: attemptedEvent({ ...identity }),
    metadata: { tenant_id: identity.tenant_id },
  };
}

function deferralCommit(deliveryId: string): DeliveryCommit {
  const identity = deliveryIdentity({ delivery_id: deliveryId });
  const [event] = decideDeferred({ identity, delayMs: 250 }, null, T0);
  return { deliveryId, before: null, event, metadata: { tenant_id: identity.tenant_id } };
}

function recorderWithFakes(options: Partial<RecorderOptions> = {}) {
  const writer = new FakeRecordWriter();
  const health = new FakeHealth();
  const registry = new Registry();
  const metrics = new DeliveryMetrics(registry);
  const recorder = new DeliveryRecorder(
    writer,
    metrics,
    { ...ENGINE_TUNING.recorder, lingerMs: 5, retryHeldMs: 10, ...options },
    health,
  );
  return { writer, health, metrics, recorder };
}

async function counted(metric: { get(): Promise<{ values: { value: number }[] }> }) {
  return (await metric.get()).values[0]?.value ?? 0;
}

beforeAll(() => Logger.overrideLogger(['warn']));

describe('DeliveryRecorder over a fake writer', () => {
  it('given records handed in together, when they are written, then in one batch, each caller getting its state', async () => {
    const { writer, recorder } = recorderWithFakes();
    const receipts = await Promise.all(
      ['del_a', 'del_b', 'del_c'].map((id) => recorder.record(attemptCommit(id))),
    );

    expect(writer.batches).toEqual([['del_a', 'del_b', 'del_c']]);
    expect(receipts.map((receipt) => receipt.committed && receipt.state.id)).toEqual([
      'del_a',
      'del_b',
      'del_c',
    ]);
  });

  it('given an urgent record (a FIFO queue waits on it), when handed in, then it is written without lingering', async () => {
    const { writer, recorder } = recorderWithFakes({ lingerMs: 60_000 });
    const receipt = await recorder.record({ ...attemptCommit('del_head'), urgent: true });

    expect(receipt.committed).toBe(true);
    expect(writer.batches).toEqual([['del_head']]);
  });

  it('given a batch with one raced attempt, when written, then the others commit and the attempt is recorded in the delivery that won', async () => {
    const { writer, metrics, recorder } = recorderWithFakes();
    writer.conflicting.add('del_raced');
    writer.winners.set('del_raced', deliveryState({ id: 'del_winner', version: 3 }));

    const [first, raced, last] = await Promise.all(
      ['del_a', 'del_raced', 'del_c'].map((id) => recorder.record(attemptCommit(id))),
    );

    expect(first.committed && last.committed).toBe(true);
    expect(raced).toMatchObject({ committed: true, state: { id: 'del_winner', version: 4 } });
    // The whole batch, then each record alone, then the raced one re-addressed to the winner.
    expect(writer.batches).toEqual([
      ['del_a', 'del_raced', 'del_c'],
      ['del_a'],
      ['del_raced'],
      ['del_winner'],
      ['del_c'],
    ]);
    expect(await counted(metrics.concurrentAttempts)).toBe(1);
  });

  it('given a raced deferral, when written, then it is dropped: the winner does its work', async () => {
    const { writer, metrics, recorder } = recorderWithFakes();
    writer.conflicting.add('del_deferred');
    writer.winners.set('del_deferred', deliveryState({ id: 'del_winner' }));

    const receipt = await recorder.record(deferralCommit('del_deferred'));

    expect(receipt).toEqual({ committed: false });
    expect(writer.batches).toEqual([['del_deferred']]);
    expect(await counted(metrics.concurrentAttempts)).toBe(0);
  });

  it('given an attempt that loses every race, when written, then it gives up after maxRaces, never loops', async () => {
    const { writer, recorder } = recorderWithFakes({ maxRaces: 2 });
    writer.conflicting.add('del_a').add('del_b').add('del_c');
    writer.winners.set('del_a', deliveryState({ id: 'del_b' }));
    writer.winners.set('del_b', deliveryState({ id: 'del_c' }));
    writer.winners.set('del_c', deliveryState({ id: 'del_a' }));

    const receipt = await recorder.record(attemptCommit('del_a'));

    expect(receipt).toEqual({ committed: false });
    expect(writer.batches).toEqual([['del_a'], ['del_b'], ['del_c']]);
  });

  it('given the database away, when records come, then they are held, not dropped, and written once it answers', async () => {
    const { writer, health, metrics, recorder } = recorderWithFakes();
    writer.failure = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

    const receipts = Promise.all([
      recorder.record(attemptCommit('del_a')),
      recorder.record(attemptCommit('del_b')),
    ]);
    await until(() => health.failures > 0 && writer.batches.length >= 2);
    expect(health.healthy).toBe(false);
    expect(await counted(metrics.recordsHeld)).toBe(2);
    expect(await counted(metrics.commitFailures)).toBeGreaterThan(0);

    writer.failure = undefined;
    const written = await receipts;
    expect(written.every((receipt) => receipt.committed)).toBe(true);
    expect(health.healthy).toBe(true);
    expect(await counted(metrics.recordsHeld)).toBe(0);
  });

  it('given a write that fails otherwise (a bug, a constraint), when written, then its callers are told', async () => {
    const { writer, recorder } = recorderWithFakes();
    writer.failure = new Error('null value in column "event_id" violates not-null constraint');

    await expect(recorder.record(attemptCommit('del_a'))).rejects.toThrow('not-null');
  });

  it('given records held while the database stays away, when the engine drains, then it gives them up after the drain limit', async () => {
    const { writer, recorder } = recorderWithFakes({ drainGiveUpMs: 30 });
    writer.failure = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const held = recorder.record(attemptCommit('del_a'));
    const rejected = expect(held).rejects.toThrow('the database stayed away');

    await recorder.drain();
    await rejected;
  });
});
