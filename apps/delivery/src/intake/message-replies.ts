import { Logger } from '@nestjs/common';
import type { RejectionReason } from '@svc/contracts';
import type { DeliveryMetrics } from '../delivery-metrics';
import type { DeadLetters, IntakeMessage, RecordingGate } from '../ports';
import { isDatabaseUnavailable } from '../recording/recording-health';
import { RepliesInOneWrite } from './replies-in-one-write';

/** What handling a message came to (event-handler.ts). */
export type HandleOutcome =
  /** Every delivery it makes is durably recorded (or it had none to make). */
  | { kind: 'ack' }
  /** It can never be delivered: parked on the dead-letter stream with its reason. */
  | { kind: 'park'; reason: RejectionReason; detail: string }
  /** It could not be handled now (the database away): JetStream hands it out again later. */
  | { kind: 'retry'; delayMs: number };

/** What becomes of a message, whatever stage of the intake decided it. */
export type MessageOutcome =
  | HandleOutcome
  /** Pulled and covered by a lane: acknowledged unhandled (ADR 0032). */
  | { kind: 'skip' }
  /** Pulled and handed back for now (a laned tenant's, ADR 0032). */
  | { kind: 'put-back'; delayMs: number }
  /** Pulled and never taken, as the intake stops: handed back at once. */
  | { kind: 'release' };

/**
 * The one place where a message's outcome becomes a reply to JetStream: an acknowledgement, a
 * negative one (with a delay), or a park and then an acknowledgement. The replies to messages
 * passed over as they were pulled go out together (RepliesInOneWrite).
 */
export class MessageReplies {
  private readonly logger = new Logger('MessageReplies');
  private readonly passedOver = new RepliesInOneWrite();

  constructor(
    private readonly deps: {
      deadLetters: DeadLetters;
      recording: Pick<RecordingGate, 'failed'>;
      metrics: Pick<DeliveryMetrics, 'messagesSkipped'>;
    },
    /** How long a message whose park failed waits before JetStream hands it out again. */
    private readonly retryFailedMessageMs: number,
  ) {}

  async settle(message: IntakeMessage, outcome: MessageOutcome): Promise<void> {
    switch (outcome.kind) {
      case 'ack':
        message.ack();
        return;
      case 'skip':
        this.deps.metrics.messagesSkipped.inc();
        this.passedOver.add(() => message.ack());
        return;
      case 'put-back':
        this.passedOver.add(() => message.nak(outcome.delayMs));
        return;
      case 'retry':
        message.nak(outcome.delayMs);
        return;
      case 'release':
        message.nak();
        return;
      case 'park':
        try {
          await this.deps.deadLetters.park(message, outcome.reason, outcome.detail);
          message.ack();
        } catch (error) {
          this.failed(message, error);
        }
        return;
    }
  }

  /** Handling failed unexpectedly: the message goes back, to be handed out again later. */
  failed(message: IntakeMessage, error: unknown): void {
    if (isDatabaseUnavailable(error)) {
      this.deps.recording.failed(error);
    }
    this.logger.error(`message ${message.seq} goes back to JetStream: ${(error as Error).message}`);
    message.nak(this.retryFailedMessageMs);
  }

  /** Sends the replies to messages passed over that are still queued (the intake stops). */
  flush(): void {
    this.passedOver.sendAll();
  }
}
