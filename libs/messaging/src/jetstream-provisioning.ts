import {
  AckPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '@svc/config';
import { SubjectScheme } from '@svc/contracts';
import { isDeepStrictEqual } from 'node:util';
import { ReplicaRefusals } from './replica-refusals';

export type JetStreamSettings = AppConfig['jetstream'];

/** What provisioning did, by object (`stream NAME`, `consumer STREAM/NAME`), for the logs. */
export interface ProvisioningSummary {
  created: string[];
  updated: string[];
  unchanged: string[];
}

export class JetStreamProvisioningError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'JetStreamProvisioningError';
  }
}

/** How long JetStream remembers a Nats-Msg-Id, so a publisher's retry is not stored twice. */
export const EVENTS_DUPLICATE_WINDOW_MS = 2 * 60_000;
/** Dead letters wait this long for someone to look at them, whatever the events retention. */
export const DEAD_LETTER_MAX_AGE_MS = 30 * 24 * 3600_000;

type DesiredStream = Pick<StreamConfig, 'name' | 'subjects' | 'retention' | 'storage'> &
  Partial<Pick<StreamConfig, 'max_age' | 'num_replicas' | 'duplicate_window' | 'discard'>>;

type DesiredConsumer = Required<
  Pick<
    ConsumerConfig,
    | 'durable_name'
    | 'filter_subject'
    | 'ack_policy'
    | 'ack_wait'
    | 'max_ack_pending'
    | 'deliver_policy'
    | 'max_deliver'
    | 'num_replicas'
  >
>;

/** JetStream refuses to change these on an existing stream or consumer. */
const FIXED_STREAM_FIELDS: readonly string[] = ['storage', 'retention'];
const FIXED_CONSUMER_FIELDS: readonly string[] = ['deliver_policy', 'ack_policy'];

/**
 * The names of the operational-events stream and of the engines' consumer of it (ADR 0030),
 * derived from the configured events stream and consumer so that each environment's are its own
 * without more settings: `SVC_EVENTS` gives `SVC_OPS` (a name without the `_EVENTS` ending gets
 * `_OPS` appended), `svc-delivery` gives `svc-delivery-ops`.
 */
export function operationalJetStreamNames(
  settings: Pick<JetStreamSettings, 'eventsStream' | 'consumer'>,
): {
  stream: string;
  consumer: string;
} {
  const stream = settings.eventsStream.endsWith('_EVENTS')
    ? `${settings.eventsStream.slice(0, -'_EVENTS'.length)}_OPS`
    : `${settings.eventsStream}_OPS`;
  return { stream, consumer: `${settings.consumer}-ops` };
}

/** The streams and the consumers the delivery engine needs, as the configuration describes them. */
export function desiredJetStreamObjects(settings: JetStreamSettings): {
  events: DesiredStream;
  deadLetter: DesiredStream;
  consumer: DesiredConsumer;
  operational: DesiredStream;
  operationalConsumer: DesiredConsumer;
} {
  const subjects = new SubjectScheme(settings.subjectRoot);
  const operationalNames = operationalJetStreamNames(settings);
  const consumer: DesiredConsumer = {
    durable_name: settings.consumer,
    filter_subject: subjects.eventsFilter,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_ack_pending: settings.maxAckPending,
    deliver_policy: DeliverPolicy.All,
    // Redelivery never stops on its own: the engine parks poison messages itself, and a cap
    // here would silently drop events whose deliveries merely keep timing out.
    max_deliver: -1,
    // 0 is JetStream's own default (as many as the stream), which consumers made before the
    // setting existed hold: they are left as they are.
    num_replicas: settings.consumerReplicas ?? 0,
  };
  const events: DesiredStream = {
    name: settings.eventsStream,
    subjects: [subjects.eventsFilter],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(settings.maxAgeMs),
    num_replicas: settings.replicas,
    // The server refuses a duplicate window longer than the retention.
    duplicate_window: nanos(Math.min(EVENTS_DUPLICATE_WINDOW_MS, settings.maxAgeMs)),
    discard: DiscardPolicy.Old,
  };
  return {
    events,
    deadLetter: {
      name: settings.deadLetterStream,
      subjects: [subjects.deadLetterFilter],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(DEAD_LETTER_MAX_AGE_MS),
      num_replicas: settings.replicas,
    },
    consumer,
    // Kept as long as the events, for the same reason: an operational event is delivered to the
    // tenant's endpoints like any other, and its records must outlive its redeliveries.
    operational: {
      ...events,
      name: operationalNames.stream,
      subjects: [subjects.operationalFilter],
    },
    // A consumer of its own: the server (2.9) takes one filter subject per consumer.
    operationalConsumer: {
      ...consumer,
      durable_name: operationalNames.consumer,
      filter_subject: subjects.operationalFilter,
    },
  };
}

/** The name every lane consumer of this deployment starts with (ADR 0032). */
export function laneConsumerPrefix(settings: JetStreamSettings): string {
  return `${settings.consumer}-lane-`;
}

/**
 * The durable consumer of a hot tenant's lane (ADR 0032): the delivery consumer's settings,
 * filtered on the tenant's subjects (`<root>.events.<tenant_id>.>`), from stream sequence
 * `startSeq` on. Its name carries the tenant and the start, so a lane opened again later is a
 * consumer of its own. The engines create it when they open the lane and delete it when they
 * close it; provisioning leaves it alone.
 */
export function desiredLaneConsumer(
  settings: JetStreamSettings,
  tenantId: string,
  startSeq: number,
): Omit<DesiredConsumer, 'deliver_policy'> &
  Pick<ConsumerConfig, 'deliver_policy' | 'opt_start_seq'> {
  const subjects = new SubjectScheme(settings.subjectRoot);
  return {
    ...desiredJetStreamObjects(settings).consumer,
    durable_name: `${laneConsumerPrefix(settings)}${tenantId}-${startSeq}`,
    filter_subject: subjects.event(tenantId, '>'),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: startSeq,
  };
}

/**
 * Creates the events stream, the dead-letter stream, the operational-events stream and the
 * delivery consumers of the two, or brings existing ones to the configuration. Safe to run on
 * every start and from several replicas at once.
 */
export async function provisionJetStream(
  nc: NatsConnection,
  settings: JetStreamSettings,
): Promise<ProvisioningSummary> {
  if (settings.replicas > 1 && !nc.info?.cluster) {
    // A lone server refuses to create such a stream but accepts the update and then keeps one
    // replica while reporting three, so the check cannot be left to it.
    throw new JetStreamProvisioningError(
      `${settings.replicas} stream replicas are configured (EVENTS_STREAM_REPLICAS), but the ` +
        `NATS server ${nc.getServer()} is not part of a cluster: use 1, or a clustered JetStream`,
    );
  }
  const jsm = await jetstreamManager(nc);
  const desired = desiredJetStreamObjects(settings);
  const replicas = new ReplicaRefusals(settings, nc.info?.cluster);
  const summary: ProvisioningSummary = { created: [], updated: [], unchanged: [] };
  for (const stream of [desired.events, desired.deadLetter, desired.operational]) {
    const outcome = await ensureStream(jsm, stream, replicas);
    summary[outcome].push(`stream ${stream.name}`);
  }
  for (const [stream, consumer] of [
    [desired.events, desired.consumer],
    [desired.operational, desired.operationalConsumer],
  ] as const) {
    const outcome = await ensureConsumer(jsm, stream.name, consumer, replicas);
    summary[outcome].push(`consumer ${stream.name}/${consumer.durable_name}`);
  }
  return summary;
}

type Outcome = keyof ProvisioningSummary;

async function ensureStream(
  jsm: JetStreamManager,
  desired: DesiredStream,
  replicas: ReplicaRefusals,
): Promise<Outcome> {
  const label = `stream ${desired.name}`;
  let existing = await orNotFound(jsm.streams.info(desired.name), JetStreamApiCodes.StreamNotFound);
  if (!existing) {
    try {
      await jsm.streams.add({ ...desired });
      return 'created';
    } catch (error) {
      // Another replica may have created it in the meantime; then it is compared like any other.
      existing = await orNotFound(jsm.streams.info(desired.name), JetStreamApiCodes.StreamNotFound);
      if (!existing) {
        throw (
          refusal(replicas.explain('create', label, 'stream', error), error) ??
          new JetStreamProvisioningError(`cannot create ${label}: ${message(error)}`, {
            cause: error,
          })
        );
      }
    }
  }
  return updateIfChanged(label, desired, existing.config, FIXED_STREAM_FIELDS, {
    hint: `recreate it (nats stream rm ${desired.name}) once its events are delivered`,
    update: (changes) => jsm.streams.update(desired.name, changes),
    explain: (error, changed) =>
      changed.includes('num_replicas')
        ? refusal(replicas.explain('update', label, 'stream', error), error)
        : undefined,
  });
}

async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  desired: DesiredConsumer,
  replicas: ReplicaRefusals,
): Promise<Outcome> {
  const name = desired.durable_name;
  const label = `consumer ${stream}/${name}`;
  const lookUp = () =>
    orNotFound(jsm.consumers.info(stream, name), JetStreamApiCodes.ConsumerNotFound);
  let existing: ConsumerInfo | null = await lookUp();
  if (!existing) {
    try {
      await jsm.consumers.add(stream, { ...desired });
      return 'created';
    } catch (error) {
      existing = await lookUp();
      if (!existing) {
        throw (
          refusal(replicas.explain('create', label, 'consumer', error), error) ??
          new JetStreamProvisioningError(`cannot create ${label}: ${message(error)}`, {
            cause: error,
          })
        );
      }
    }
  }
  if (existing.config.deliver_subject) {
    throw new JetStreamProvisioningError(
      `${label} is a push consumer, but the delivery engine pulls: delete it ` +
        `(nats consumer rm ${stream} ${name}) and provision again`,
    );
  }
  return updateIfChanged(label, desired, existing.config, FIXED_CONSUMER_FIELDS, {
    hint: `delete it (nats consumer rm ${stream} ${name}) and provision again; it restarts from the first event still in the stream`,
    update: (changes) => jsm.consumers.update(stream, name, changes),
    explain: (error, changed) =>
      changed.includes('num_replicas')
        ? refusal(replicas.explain('update', label, 'consumer', error), error)
        : undefined,
  });
}

async function updateIfChanged<T extends object>(
  label: string,
  desired: T,
  actual: object,
  fixedFields: readonly string[],
  how: {
    hint: string;
    update: (changes: Partial<T>) => Promise<unknown>;
    /** A clearer error than JetStream's answer to the update of `changed`, when there is one. */
    explain?: (error: unknown, changed: string[]) => Error | undefined;
  },
): Promise<Outcome> {
  const current = actual as Record<string, unknown>;
  const changed = differingFields(desired, actual);
  if (changed.length === 0) {
    return 'unchanged';
  }
  const fixed = changed.filter((field) => fixedFields.includes(field));
  if (fixed.length > 0) {
    const differences = fixed
      .map((field) => `${field} is ${show(current[field])}, configured ${show(desired[field])}`)
      .join('; ');
    throw new JetStreamProvisioningError(
      `${label} exists with a configuration JetStream cannot change (${differences}): ${how.hint}`,
    );
  }
  const changes: Partial<T> = {};
  for (const field of changed) {
    changes[field] = desired[field];
  }
  try {
    await how.update(changes);
  } catch (error) {
    throw (
      how.explain?.(error, changed) ??
      new JetStreamProvisioningError(
        `cannot update ${label} (${changed.join(', ')}): ${message(error)}`,
        { cause: error },
      )
    );
  }
  return 'updated';
}

function differingFields<T extends object>(desired: T, actual: object): (keyof T & string)[] {
  const current = actual as Record<string, unknown>;
  return (Object.keys(desired) as (keyof T & string)[]).filter(
    (field) => !isDeepStrictEqual(desired[field], current[field]),
  );
}

async function orNotFound<T>(lookUp: Promise<T>, notFoundCode: number): Promise<T | null> {
  try {
    return await lookUp;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === notFoundCode) {
      return null;
    }
    throw error;
  }
}

function refusal(explained: string | undefined, error: unknown): Error | undefined {
  return explained === undefined
    ? undefined
    : new JetStreamProvisioningError(explained, { cause: error });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? 'unset';
}
