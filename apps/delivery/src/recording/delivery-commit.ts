import type { DeliveryEvent, DeliveryState, InboundPayload } from '@svc/deliveries';
import type { EndpointConclusion } from './endpoint-status-recorder';

/**
 * One event to append to one delivery's stream, with what it implies: what the recorder takes
 * and both of its writers (the one statement, group-commit-statement.ts, and the transaction)
 * write.
 */
export interface DeliveryCommit {
  deliveryId: string;
  /** The delivery as the writer saw it; null for a new delivery. */
  before: DeliveryState | null;
  event: DeliveryEvent;
  metadata: Record<string, unknown>;
  payload?: InboundPayload;
  conclusion?: EndpointConclusion;
  /**
   * Something waits on this record before it can go on (a FIFO endpoint's queue: its next
   * delivery is sent only once this one's conclusion is durable), so it does not linger for
   * company (ADR 0045).
   */
  urgent?: boolean;
}
