import type { Consumer } from '@nats-io/jetstream';
import type { MessageSource } from '../../ports';

/** A JetStream pull consumer as an intake's message source: one `fetch` per pull. */
export function consumerSource(consumer: Consumer): MessageSource {
  return {
    fetch: (max, expiresMs) => consumer.fetch({ max_messages: max, expires: expiresMs }),
  };
}
