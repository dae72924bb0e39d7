import type { EventEnvelope, EventType } from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';

/**
 * Event envelopes of exactly `bytes` bytes once serialised (ids and timestamps have fixed
 * lengths, so the padding is computed once per type). With several types, they take turns: the
 * fan-out scenario's endpoints each subscribe to one of them.
 */
export class BenchEvents {
  private readonly paddings: { type: EventType; padding: string }[];
  private turn = 0;

  constructor(
    private readonly tenantId: string,
    bytes: number,
    types: readonly EventType[] = ['alert.created'],
  ) {
    this.paddings = types.map((type) => {
      const probe = JSON.stringify(this.build(type, ''));
      const missing = bytes - Buffer.byteLength(probe);
      if (missing < 0) {
        throw new Error(`an envelope of ${type} is at least ${Buffer.byteLength(probe)} bytes`);
      }
      return { type, padding: 'x'.repeat(missing) };
    });
  }

  next(): EventEnvelope {
    const { type, padding } = this.paddings[this.turn];
    this.turn = (this.turn + 1) % this.paddings.length;
    return this.build(type, padding);
  }

  private build(type: EventType, padding: string): EventEnvelope {
    return newEventEnvelope(this.tenantId, type, {
      alert_id: 'alr_bench0000',
      severity: 'high',
      title: 'Suspicious sign-in from a new country',
      description: padding,
    });
  }
}
