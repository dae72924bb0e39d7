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

  /** Failed handlings by message (stream and sequence), the database's failures not counted. */
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly deps: {
      deadLetters: DeadLetters;
      recording: Pick<RecordingGate, 'failed'>;
      metrics: Pick<DeliveryMetrics, 'messagesSkipped'>;
    },
    private readonly options: {
      /** How long a message whose handling or park failed waits before it is handed out again. */
      retryFailedMessageMs: number;
      /** A message whose handling failed this often in this engine is parked (`handling-failed`). */
      maxFailedHandlings: number;
    },
  ) {}

  async settle(message: IntakeMessage, outcome: MessageOutcome): Promise<void> {
    switch (outcome.kind) {
      case 'ack':
        if (this.failures.size > 0) {
          this.failures.delete(keyOf(message));
        }
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
          // A park that fails is not counted: parking is what ends the count.
          if (isDatabaseUnavailable(error)) {
            this.deps.recording.failed(error);
          }
          await this.sendBack(message, `its park failed: ${(error as Error).message}`);
        }
        return;
    }
  }

  /**
   * Handling failed: the message goes back, to be handed out again later. While the database is
   * away that is all (the message is fine, and parked it would never be delivered). Any other
   * failure is counted, and a message that failed `maxFailedHandlings` times here is parked with
   * the last error, so that one that fails alike on every delivery (a bug meeting its content) is
   * never retried forever, holding one of the consumer's unacknowledged slots (issue 30).
   */
  failed(message: IntakeMessage, error: unknown): Promise<void> {
    const why = (error as Error).message;
    if (isDatabaseUnavailable(error)) {
      this.deps.recording.failed(error);
      return this.sendBack(message, why);
    }
    const key = keyOf(message);
    const failures = (this.failures.get(key) ?? 0) + 1;
    if (failures < this.options.maxFailedHandlings) {
      this.failures.delete(key);
      this.failures.set(key, failures);
      if (this.failures.size > MAX_COUNTED_MESSAGES) {
        // The oldest count goes: at worst that message is tried a few more times.
        this.failures.delete(this.failures.keys().next().value!);
      }
      return this.sendBack(message, why);
    }
    this.failures.delete(key);
    this.logger.error(
      `message ${message.seq} is parked: its handling failed ${failures} times (${why})`,
    );
    return this.settle(message, {
      kind: 'park',
      reason: 'handling-failed',
      detail: `its handling failed ${failures} times in one engine; the last time: ${why}`,
    });
  }

  private sendBack(message: IntakeMessage, why: string): Promise<void> {
    this.logger.error(`message ${message.seq} goes back to JetStream: ${why}`);
    message.nak(this.options.retryFailedMessageMs);
    return Promise.resolve();
  }

  /** Sends the replies to messages passed over that are still queued (the intake stops). */
  flush(): void {
    this.passedOver.sendAll();
  }
}

/** Messages whose failures are counted at once, at most: memory stays bounded. */
const MAX_COUNTED_MESSAGES = 10_000;

function keyOf(message: IntakeMessage): string {
  return `${message.info.stream} ${message.seq}`;
}
