import type { EventEnvelope } from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';

/**
 * Event envelopes of exactly `bytes` bytes once serialised (ids and timestamps have fixed
 * lengths, so the padding is computed once).
 */
export class BenchEvents {
  private readonly padding: string;

  constructor(
    private readonly tenantId: string,
    bytes: number,
  ) {
    const probe = JSON.stringify(this.build(''));
    const missing = bytes - Buffer.byteLength(probe);
    if (missing < 0) {
      throw new Error(`an envelope is at least ${Buffer.byteLength(probe)} bytes`);
    }
    this.padding = 'x'.repeat(missing);
  }

  next(): EventEnvelope {
    return this.build(this.padding);
  }

  private build(padding: string): EventEnvelope {
    return newEventEnvelope(this.tenantId, 'alert.created', {
      alert_id: 'alr_bench0000',
      severity: 'high',
      title: 'Suspicious sign-in from a new country',
      description: padding,
    });
  }
}
