import { jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import {
  DEAD_LETTER_MAX_AGE_MS,
  JetStreamProvisioningError,
  operationalJetStreamNames,
  provisionJetStream,
} from '@svc/messaging';
import {
  connectTestNats,
  deleteStaleTestStreams,
  deleteStreams,
  type JetStreamSettings,
  uniqueJetStreamSettings,
} from '../support/jetstream-harness';

describe('JetStream provisioning (real NATS)', () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const provisioned: JetStreamSettings[] = [];

  /** Settings of this test's own, whose streams afterAll deletes. */
  function settingsForTest(overrides: Partial<JetStreamSettings> = {}): JetStreamSettings {
    const settings = uniqueJetStreamSettings(overrides);
    provisioned.push(settings);
    return settings;
  }

  const objectsOf = (settings: JetStreamSettings) => [
    `stream ${settings.eventsStream}`,
    `stream ${settings.deadLetterStream}`,
    `stream ${operationalJetStreamNames(settings).stream}`,
    `consumer ${settings.eventsStream}/${settings.consumer}`,
    `consumer ${operationalJetStreamNames(settings).stream}/${operationalJetStreamNames(settings).consumer}`,
  ];

  beforeAll(async () => {
    nc = await connectTestNats();
    jsm = await jetstreamManager(nc);
    await deleteStaleTestStreams(nc);
  });

  afterAll(async () => {
    for (const settings of provisioned) {
      await deleteStreams(nc, settings);
    }
    await nc.close();
  });

  it('creates both streams and the pull consumer as configured, then leaves them alone', async () => {
    const settings = settingsForTest({ maxAgeMs: 7 * 24 * 3600_000, ackWaitMs: 60_000 });

    const first = await provisionJetStream(nc, settings);
    expect(first).toEqual({ created: objectsOf(settings), updated: [], unchanged: [] });

    const events = await jsm.streams.info(settings.eventsStream);
    expect(events.config).toMatchObject({
      subjects: [`${settings.subjectRoot}.events.>`],
      retention: 'limits',
      storage: 'file',
      max_age: nanos(7 * 24 * 3600_000),
      num_replicas: 1,
      duplicate_window: nanos(120_000),
      discard: 'old',
    });
    const deadLetter = await jsm.streams.info(settings.deadLetterStream);
    expect(deadLetter.config).toMatchObject({
      subjects: [`${settings.subjectRoot}.deadletter.>`],
      retention: 'limits',
      storage: 'file',
      max_age: nanos(DEAD_LETTER_MAX_AGE_MS),
      num_replicas: 1,
    });
    const consumer = await jsm.consumers.info(settings.eventsStream, settings.consumer);
    expect(consumer.config).toMatchObject({
      durable_name: settings.consumer,
      filter_subject: `${settings.subjectRoot}.events.>`,
      ack_policy: 'explicit',
      ack_wait: nanos(60_000),
      max_ack_pending: settings.maxAckPending,
      deliver_policy: 'all',
      max_deliver: -1,
    });
    expect(consumer.config.deliver_subject).toBeUndefined();
    const operational = operationalJetStreamNames(settings);
    expect((await jsm.streams.info(operational.stream)).config).toMatchObject({
      subjects: [`${settings.subjectRoot}.ops.>`],
      retention: 'limits',
      storage: 'file',
      max_age: nanos(7 * 24 * 3600_000),
      duplicate_window: nanos(120_000),
    });
    expect(
      (await jsm.consumers.info(operational.stream, operational.consumer)).config,
    ).toMatchObject({
      filter_subject: `${settings.subjectRoot}.ops.>`,
      ack_policy: 'explicit',
      max_deliver: -1,
    });

    const second = await provisionJetStream(nc, settings);
    expect(second).toEqual({ created: [], updated: [], unchanged: objectsOf(settings) });
  });

  it('updates the retention and the ack wait of existing objects', async () => {
    const settings = settingsForTest();
    await provisionJetStream(nc, settings);

    const changed = { ...settings, maxAgeMs: 2 * 3600_000, ackWaitMs: 45_000 };
    const summary = await provisionJetStream(nc, changed);

    expect(summary).toEqual({
      created: [],
      updated: objectsOf(settings).filter((object) => !object.includes(settings.deadLetterStream)),
      unchanged: [`stream ${settings.deadLetterStream}`],
    });
    expect((await jsm.streams.info(settings.eventsStream)).config.max_age).toBe(
      nanos(2 * 3600_000),
    );
    expect(
      (await jsm.consumers.info(settings.eventsStream, settings.consumer)).config,
    ).toMatchObject({ ack_wait: nanos(45_000), max_deliver: -1 });
    expect(await provisionJetStream(nc, changed)).toEqual({
      created: [],
      updated: [],
      unchanged: objectsOf(settings),
    });
  });

  it('keeps the duplicate window within a retention shorter than two minutes', async () => {
    const settings = settingsForTest({ maxAgeMs: 60_000 });
    await provisionJetStream(nc, settings);
    expect((await jsm.streams.info(settings.eventsStream)).config.duplicate_window).toBe(
      nanos(60_000),
    );
  });

  it('says clearly when an existing stream cannot be changed into the configured one', async () => {
    const settings = settingsForTest();
    await jsm.streams.add({
      name: settings.eventsStream,
      subjects: [`${settings.subjectRoot}.events.>`],
      storage: StorageType.Memory,
    });

    const provisioning = provisionJetStream(nc, settings);

    await expect(provisioning).rejects.toThrow(JetStreamProvisioningError);
    await expect(provisioning).rejects.toThrow(
      `stream ${settings.eventsStream} exists with a configuration JetStream cannot change ` +
        `(storage is "memory", configured "file")`,
    );
    expect((await jsm.streams.info(settings.eventsStream)).config.storage).toBe('memory');
  });

  it('refuses more than one replica on a server that is not clustered', async () => {
    const settings = settingsForTest();
    await provisionJetStream(nc, settings);
    const provisioning = provisionJetStream(nc, { ...settings, replicas: 3 });

    if (nc.info?.cluster) {
      await expect(provisioning).resolves.toMatchObject({
        updated: expect.arrayContaining([`stream ${settings.eventsStream}`]),
      });
    } else {
      await expect(provisioning).rejects.toThrow(
        /3 stream replicas are configured \(EVENTS_STREAM_REPLICAS\), but the NATS server .* is not part of a cluster/,
      );
      expect((await jsm.streams.info(settings.eventsStream)).config.num_replicas).toBe(1);
    }
  });

  it('lets several replicas provision at the same time', async () => {
    const settings = settingsForTest();

    const summaries = await Promise.all([1, 2, 3].map(() => provisionJetStream(nc, settings)));

    for (const object of objectsOf(settings)) {
      const created = summaries.filter((summary) => summary.created.includes(object));
      expect(created.length).toBeGreaterThanOrEqual(1);
    }
    expect(summaries.flatMap((summary) => summary.updated)).toEqual([]);
    expect(await provisionJetStream(nc, settings)).toMatchObject({
      unchanged: objectsOf(settings),
    });
  });
});
