import { JetStreamApiError } from '@nats-io/jetstream';
import type { AppConfig } from '@svc/config';

type JetStreamSettings = AppConfig['jetstream'];

/** JetStream's answers when it cannot place the replicas asked for. */
const PLACEMENT_CODES: readonly number[] = [
  10005, // no suitable peers for placement
  10023, // insufficient resources
  10074, // replicas > 1 not supported in non-clustered mode
];
/** "consumer config replica count exceeds parent stream". */
const CONSUMER_REPLICAS_EXCEED_STREAM = 10126;

/**
 * Says which setting asked for the replicas JetStream could not give, and what to do: the
 * server's own answer ("no suitable peers for placement") names neither the setting nor the
 * cause, and the engine retries its start with this message until the cluster can hold them.
 */
export class ReplicaRefusals {
  constructor(
    private readonly settings: JetStreamSettings,
    private readonly cluster: string | undefined,
  ) {}

  /** What to say instead of `error` when it is JetStream refusing the replicas. */
  explain(
    action: 'create' | 'update',
    label: string,
    kind: 'stream' | 'consumer',
    error: unknown,
  ): string | undefined {
    if (!(error instanceof JetStreamApiError)) {
      return undefined;
    }
    const answer = `JetStream answered "${error.message}" (${error.code})`;
    const where = this.cluster ? `the NATS cluster "${this.cluster}"` : 'the NATS server';
    const stream = this.settings.replicas;
    const consumer = this.settings.consumerReplicas ?? 0;
    if (kind === 'consumer' && error.code === CONSUMER_REPLICAS_EXCEED_STREAM) {
      return (
        `cannot ${action} ${label} with ${consumer} replicas (DELIVERY_CONSUMER_REPLICAS=${consumer}): ` +
        `${answer}: its stream has fewer; use at most EVENTS_STREAM_REPLICAS (${stream}), or 0`
      );
    }
    if (!PLACEMENT_CODES.includes(error.code)) {
      return undefined;
    }
    const [setting, count] =
      kind === 'consumer' && consumer > 0
        ? ['DELIVERY_CONSUMER_REPLICAS', consumer]
        : ['EVENTS_STREAM_REPLICAS', stream];
    if (count <= 1) {
      // One replica that cannot be placed: out of storage, not a question of replicas.
      return undefined;
    }
    return (
      `cannot ${action} ${label} with ${count} replicas (${setting}=${count}): ${answer}: ${where} has ` +
      `fewer than ${count} JetStream servers that can hold them (too few in the cluster, some ` +
      `down, or out of storage); set ${setting} to at most the cluster's JetStream servers ` +
      `that are up, or bring the missing ones back`
    );
  }
}
