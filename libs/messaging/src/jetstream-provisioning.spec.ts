import { JetStreamApiError, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  desiredJetStreamObjects,
  desiredLaneConsumer,
  JetStreamProvisioningError,
  laneConsumerPrefix,
  operationalJetStreamNames,
  provisionJetStream,
} from './jetstream-provisioning';

// The refusals below are JetStream's answers, made up: a real cluster answers the same in the
// fault scenario nats-cluster-leader-killed (test/faults).
jest.mock('@nats-io/jetstream', () => ({
  ...jest.requireActual<object>('@nats-io/jetstream'),
  jetstreamManager: jest.fn(),
}));

describe('the operational-events stream and consumer (ADR 0030)', () => {
  const settings = {
    subjectRoot: 'svc',
    eventsStream: 'SVC_EVENTS',
    replicas: 1,
    maxAgeMs: 7 * 24 * 3600_000,
    deadLetterStream: 'SVC_DEAD_LETTER',
    consumer: 'svc-delivery',
    ackWaitMs: 60_000,
    maxAckPending: 2000,
  };

  it('are named after the events stream and the delivery consumer', () => {
    expect(operationalJetStreamNames(settings)).toEqual({
      stream: 'SVC_OPS',
      consumer: 'svc-delivery-ops',
    });
    expect(
      operationalJetStreamNames({
        ...settings,
        eventsStream: 'SVC_PRODUCTION_EVENTS',
        consumer: 'svc-delivery-production',
      }),
    ).toEqual({ stream: 'SVC_PRODUCTION_OPS', consumer: 'svc-delivery-production-ops' });
    expect(operationalJetStreamNames({ ...settings, eventsStream: 'PLATFORM' }).stream).toBe(
      'PLATFORM_OPS',
    );
  });

  it('so that environments with their own events stream have their own, apart from the others', () => {
    const staging = operationalJetStreamNames({ ...settings, eventsStream: 'SVC_STAGING_EVENTS' });
    const production = operationalJetStreamNames({
      ...settings,
      eventsStream: 'SVC_PRODUCTION_EVENTS',
    });
    expect(staging.stream).not.toBe(production.stream);
    expect([settings.eventsStream, settings.deadLetterStream]).not.toContain(
      operationalJetStreamNames(settings).stream,
    );
  });

  it('capture the ops subjects, kept as long as the events, one filter subject per consumer', () => {
    const desired = desiredJetStreamObjects({ ...settings, subjectRoot: 'staging.svc' });
    expect(desired.operational).toMatchObject({
      name: 'SVC_OPS',
      subjects: ['staging.svc.ops.>'],
      max_age: desired.events.max_age,
      duplicate_window: desired.events.duplicate_window,
    });
    expect(desired.operationalConsumer).toMatchObject({
      durable_name: 'svc-delivery-ops',
      filter_subject: 'staging.svc.ops.>',
      ack_wait: desired.consumer.ack_wait,
      max_deliver: -1,
    });
  });
});

describe("a hot tenant's lane consumer (ADR 0032)", () => {
  const settings = {
    subjectRoot: 'staging.svc',
    eventsStream: 'SVC_EVENTS',
    replicas: 1,
    maxAgeMs: 7 * 24 * 3600_000,
    deadLetterStream: 'SVC_DEAD_LETTER',
    consumer: 'svc-delivery',
    ackWaitMs: 60_000,
    maxAckPending: 2000,
  };

  it("reads the tenant's events only, from the sequence the lane starts at, acknowledged like the delivery consumer's", () => {
    const lane = desiredLaneConsumer(settings, 'ten_a1', 4711);
    const main = desiredJetStreamObjects(settings).consumer;
    expect(lane).toEqual({
      ...main,
      durable_name: 'svc-delivery-lane-ten_a1-4711',
      filter_subject: 'staging.svc.events.ten_a1.>',
      deliver_policy: 'by_start_sequence',
      opt_start_seq: 4711,
    });
    expect(lane.durable_name.startsWith(laneConsumerPrefix(settings))).toBe(true);
    expect(laneConsumerPrefix(settings)).not.toBe(operationalJetStreamNames(settings).consumer);
  });
});

describe('replicas the NATS cluster cannot hold', () => {
  const settings = {
    subjectRoot: 'svc',
    eventsStream: 'SVC_EVENTS',
    replicas: 5,
    maxAgeMs: 7 * 24 * 3600_000,
    deadLetterStream: 'SVC_DEAD_LETTER',
    consumer: 'svc-delivery',
    ackWaitMs: 60_000,
    maxAckPending: 2000,
  };
  const apiError = (code: number, description: string) =>
    new JetStreamApiError({ code: 400, err_code: code, description });
  const notFound = (what: 'stream' | 'consumer') =>
    what === 'stream' ? apiError(10059, 'stream not found') : apiError(10014, 'consumer not found');
  const clustered = {
    info: { cluster: 'nats-prod' },
    getServer: () => 'nats-0:4222',
  } as unknown as NatsConnection;

  /** A JetStream with nothing in it, whose creations fail as `refuse` says. */
  function jetStream(
    refuse: { stream?: JetStreamApiError; consumer?: JetStreamApiError },
    existing: object[] = [],
  ) {
    const streams = new Map<string, object>(
      existing.map((config) => [(config as { name: string }).name, config]),
    );
    const jsm = {
      streams: {
        info: (name: string) =>
          streams.has(name)
            ? Promise.resolve({ config: streams.get(name) })
            : Promise.reject(notFound('stream')),
        add: (config: { name: string }) => {
          if (refuse.stream) {
            return Promise.reject(refuse.stream);
          }
          streams.set(config.name, config);
          return Promise.resolve({ config });
        },
        update: () => Promise.reject(refuse.stream ?? new Error('not made up')),
      },
      consumers: {
        info: () => Promise.reject(notFound('consumer')),
        add: () => Promise.reject(refuse.consumer ?? new Error('not made up')),
      },
    };
    jest.mocked(jetstreamManager).mockResolvedValue(jsm as unknown as JetStreamManager);
  }

  it('names EVENTS_STREAM_REPLICAS when JetStream finds too few servers for the stream', async () => {
    jetStream({ stream: apiError(10005, 'no suitable peers for placement') });

    const provisioning = provisionJetStream(clustered, settings);

    await expect(provisioning).rejects.toThrow(JetStreamProvisioningError);
    await expect(provisioning).rejects.toThrow(
      'cannot create stream SVC_EVENTS with 5 replicas (EVENTS_STREAM_REPLICAS=5): JetStream ' +
        'answered "no suitable peers for placement" (10005): the NATS cluster "nats-prod" has ' +
        'fewer than 5 JetStream servers that can hold them',
    );
  });

  it('says the same of "insufficient resources"', async () => {
    jetStream({ stream: apiError(10023, 'insufficient resources') });

    await expect(provisionJetStream(clustered, { ...settings, replicas: 3 })).rejects.toThrow(
      /with 3 replicas \(EVENTS_STREAM_REPLICAS=3\): JetStream answered "insufficient resources"/,
    );
  });

  it('names DELIVERY_CONSUMER_REPLICAS when the consumers are refused theirs', async () => {
    jetStream({ consumer: apiError(10005, 'no suitable peers for placement') });

    await expect(
      provisionJetStream(clustered, { ...settings, replicas: 3, consumerReplicas: 3 }),
    ).rejects.toThrow(
      'cannot create consumer SVC_EVENTS/svc-delivery with 3 replicas (DELIVERY_CONSUMER_REPLICAS=3)',
    );
    jetStream({ consumer: apiError(10126, 'consumer config replica count exceeds parent stream') });
    await expect(
      provisionJetStream(clustered, { ...settings, replicas: 3, consumerReplicas: 3 }),
    ).rejects.toThrow(/its stream has fewer; use at most EVENTS_STREAM_REPLICAS \(3\), or 0/);
  });

  it('says so when an existing stream is asked for more replicas than the cluster holds', async () => {
    const events = desiredJetStreamObjects({ ...settings, replicas: 3 }).events;
    jetStream({ stream: apiError(10005, 'no suitable peers for placement') }, [events]);

    await expect(provisionJetStream(clustered, settings)).rejects.toThrow(
      'cannot update stream SVC_EVENTS with 5 replicas (EVENTS_STREAM_REPLICAS=5)',
    );
  });

  it("passes JetStream's other answers on as they are", async () => {
    jetStream({ stream: apiError(10052, 'stream name is invalid') });

    await expect(provisionJetStream(clustered, settings)).rejects.toThrow(
      'cannot create stream SVC_EVENTS: stream name is invalid',
    );
  });

  it('refuses more than one replica on a lone server before asking it', async () => {
    jetStream({});
    const lone = { info: {}, getServer: () => 'nats:4222' } as unknown as NatsConnection;

    await expect(provisionJetStream(lone, settings)).rejects.toThrow(
      '5 stream replicas are configured (EVENTS_STREAM_REPLICAS), but the NATS server nats:4222 is not part of a cluster',
    );
  });

  it('gives the consumers the configured replicas, or 0 (as many as the stream)', () => {
    expect(desiredJetStreamObjects(settings).consumer.num_replicas).toBe(0);
    const three = desiredJetStreamObjects({ ...settings, replicas: 3, consumerReplicas: 3 });
    expect(three.consumer.num_replicas).toBe(3);
    expect(three.operationalConsumer.num_replicas).toBe(3);
    expect(
      desiredLaneConsumer({ ...settings, consumerReplicas: 3 }, 'ten_a1', 1).num_replicas,
    ).toBe(3);
  });
});
