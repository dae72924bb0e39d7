import { headers as natsHeaders } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';
import {
  newId,
  ORIGINAL_SUBJECT_HEADER,
  REJECTION_DETAIL_HEADER,
  REJECTION_REASON_HEADER,
  RejectionReason,
  SubjectScheme,
} from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import { DataSource } from 'typeorm';
import { DeliveryMetrics } from '../../delivery-metrics';
import type { DeadLetters, IntakeMessage } from '../../ports';

export const REJECTED_EVENT_TYPE = 'event.rejected';
const EXCERPT_CHARACTERS = 512;

/**
 * Parks a message the engine cannot accept: republished unchanged on the dead-letter subject
 * with the reason in its headers, recorded in the log and counted; the intake acknowledges it only
 * then (MessageReplies), so the consumer moves on and nothing is lost.
 */
export class DeadLetterPark implements DeadLetters {
  constructor(
    private readonly js: JetStreamClient,
    private readonly subjects: SubjectScheme,
    private readonly dataSource: DataSource,
    private readonly metrics: DeliveryMetrics,
  ) {}

  async park(message: IntakeMessage, reason: RejectionReason, detail: string): Promise<void> {
    const headers = natsHeaders();
    for (const [name, values] of message.headers ?? []) {
      values.forEach((value) => headers.append(name, value));
    }
    headers.set(REJECTION_REASON_HEADER, reason);
    headers.set(REJECTION_DETAIL_HEADER, detail.replace(/[\r\n]+/g, ' ').slice(0, 1000));
    headers.set(ORIGINAL_SUBJECT_HEADER, message.subject);
    // The message id makes a re-park of a redelivered message a duplicate JetStream drops.
    await this.js.publish(this.subjects.deadLetter(reason), message.data, {
      headers,
      msgID: `dead-letter-${message.info.stream}-${message.seq}`,
    });
    const rejectionId = newId('rej');
    await this.dataSource.transaction((manager) =>
      appendToStream(manager, rejectionId, 0, [
        {
          type: REJECTED_EVENT_TYPE,
          data: {
            rejection_id: rejectionId,
            reason,
            detail: detail.slice(0, 1000),
            subject: message.subject,
            stream: message.info.stream,
            stream_sequence: message.seq,
            body_excerpt: Buffer.from(message.data).toString('utf8').slice(0, EXCERPT_CHARACTERS),
          },
        },
      ]),
    );
    this.metrics.eventsRejected.inc({ reason });
  }
}
