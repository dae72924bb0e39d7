import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { AppConfig } from '@svc/config';
import { operationalJetStreamNames } from '@svc/messaging';
import { randomBytes } from 'node:crypto';
import { STALE_RUN_SECONDS, TEST_NATS_URL } from './test-environment';

export type JetStreamSettings = AppConfig['jetstream'];

/** Every stream the suites create is named so; nothing else on a shared server is touched. */
const TEST_STREAM = /^SVCTEST_([0-9a-z]+)_[0-9a-f]+_/;

/**
 * JetStream settings of a test's own: the NATS server is shared by concurrent suites and runs,
 * and two streams may not capture the same subjects, so the subject root and every name are
 * unique. Names start with their creation time, so leftovers of killed runs can be recognised.
 */
export function uniqueJetStreamSettings(
  overrides: Partial<JetStreamSettings> = {},
): JetStreamSettings {
  const tag = `${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString('hex')}`;
  return {
    subjectRoot: `svctest_${tag}`,
    eventsStream: `SVCTEST_${tag}_EVENTS`,
    replicas: 1,
    maxAgeMs: 3_600_000,
    deadLetterStream: `SVCTEST_${tag}_DEAD_LETTER`,
    consumer: `svctest_${tag}_delivery`,
    ackWaitMs: 30_000,
    maxAckPending: 100,
    ...overrides,
  };
}

export function connectTestNats(): Promise<NatsConnection> {
  return connect({ servers: TEST_NATS_URL, name: 'svc-e2e' });
}

/** Deletes the settings' streams (and so their consumers); a stream already gone is fine. */
export async function deleteStreams(
  nc: NatsConnection,
  settings: JetStreamSettings,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const operational = operationalJetStreamNames(settings).stream;
  for (const name of [settings.eventsStream, settings.deadLetterStream, operational]) {
    await jsm.streams.delete(name).catch((error: unknown) => {
      if (!(
        error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound
      )) {
        throw error;
      }
    });
  }
}

/** Streams left by suites that were killed before their afterAll, older than a run can last. */
export async function deleteStaleTestStreams(nc: NatsConnection): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const now = Math.floor(Date.now() / 1000);
  const deleted: string[] = [];
  for await (const name of jsm.streams.names()) {
    const match = TEST_STREAM.exec(name);
    if (match && now - parseInt(match[1], 36) > STALE_RUN_SECONDS) {
      await jsm.streams.delete(name).catch(() => undefined);
      deleted.push(name);
    }
  }
  return deleted;
}
