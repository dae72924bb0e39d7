import {
  desiredJetStreamObjects,
  desiredLaneConsumer,
  laneConsumerPrefix,
  operationalJetStreamNames,
} from './jetstream-provisioning';

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
