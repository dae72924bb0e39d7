import type { NatsConnection } from '@nats-io/nats-core';
import { EventEnvelope, EventType, SubjectScheme } from '@svc/contracts';
import { EventPublisher, newEventEnvelope } from '@svc/event-publisher';
import { randomBytes } from 'node:crypto';
import { createDeliveryApplication } from '../../apps/delivery/src/delivery-application';
import { DeliveryEngine } from '../../apps/delivery/src/delivery-engine';
import { RunningApi, startApi } from './api-harness';
import { RunningApp, startApp } from './app-harness';
import { http } from './http-client';
import { TEST_CA_FILE } from './https-receiver';
import {
  connectTestNats,
  deleteStreams,
  JetStreamSettings,
  uniqueJetStreamSettings,
} from './jetstream-harness';
import { createTestDatabase } from './test-database';

export interface RunningEngine extends RunningApp {
  engine: DeliveryEngine;
}

/**
 * The API and the delivery engine, real and complete, over one database of their own, a
 * JetStream namespace of their own on the test NATS server, and the test CA for HTTPS receivers.
 * The retry schedule is shortened so a whole schedule runs in seconds.
 */
export interface DeliveryStack {
  api: RunningApi;
  /** The in-process engine (absent, despite the type, when started with inProcessEngine: false). */
  engine: RunningEngine;
  settings: JetStreamSettings;
  /** The environment both apps were configured with. */
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  nats: NatsConnection;
  publisher: EventPublisher;
  /** Another engine process-equivalent over the same database and stream (a replica, or a restart). */
  startEngine(overrides?: NodeJS.ProcessEnv): Promise<RunningEngine>;
  /** A tenant with a webhooks:manage key. */
  newTenant(): Promise<{ tenantId: string; key: string }>;
  registerEndpoint(
    key: string,
    url: string,
    options?: { events?: string[]; secret?: string },
  ): Promise<{ id: string; secret: string }>;
  publish(
    tenantId: string,
    type?: EventType,
    data?: Record<string, unknown>,
  ): Promise<EventEnvelope>;
  close(): Promise<void>;
}

export async function startDeliveryStack(
  overrides: NodeJS.ProcessEnv = {},
  options: { inProcessEngine?: boolean; apiPort?: number } = {},
): Promise<DeliveryStack> {
  const database = await createTestDatabase();
  const settings = uniqueJetStreamSettings();
  const env: NodeJS.ProcessEnv = {
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    NATS_SUBJECT_ROOT: settings.subjectRoot,
    EVENTS_STREAM: settings.eventsStream,
    DEAD_LETTER_STREAM: settings.deadLetterStream,
    DELIVERY_CONSUMER: settings.consumer,
    DELIVERY_CONSUMER_ACK_WAIT: '30s',
    DELIVERY_EXTRA_CA_FILE: TEST_CA_FILE,
    DELIVERY_RETRY_SCHEDULE: '200ms',
    DELIVERY_TIMEOUT: '2s',
    DELIVERY_SCHEDULER_INTERVAL: '50ms',
    ...overrides,
  };
  const nats = await connectTestNats();
  const engines: RunningEngine[] = [];
  const startEngine = async (more: NodeJS.ProcessEnv = {}): Promise<RunningEngine> => {
    const running = await startApp(
      'delivery',
      createDeliveryApplication,
      { ...env, ...more },
      { databaseUrl: database.url, managementOnly: true },
    );
    const engine = running.app.get(DeliveryEngine);
    await engine.ready;
    const started = { ...running, engine };
    engines.push(started);
    return started;
  };
  const api = await startApi(env, { databaseUrl: database.url, port: options.apiPort });
  // Without one, the tests run the engine as a process of its own (test/support/engine-process.ts).
  const engine =
    options.inProcessEngine === false
      ? (undefined as unknown as RunningEngine)
      : await startEngine();
  const publisher = new EventPublisher(nats, new SubjectScheme(settings.subjectRoot));
  return {
    api,
    engine,
    settings,
    env,
    databaseUrl: database.url,
    nats,
    publisher,
    startEngine,
    async newTenant() {
      const { tenantId, key } = await api.newTenantWithKey(['webhooks:manage']);
      return { tenantId, key };
    },
    async registerEndpoint(key, url, options = {}) {
      const secret = options.secret ?? `secret-${randomBytes(12).toString('hex')}`;
      const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        json: { url, events: options.events ?? ['alert.*', 'incident.*'], secret },
      });
      if (response.status !== 201) {
        throw new Error(`registration failed: ${response.status} ${response.text}`);
      }
      return { id: response.body.id as string, secret };
    },
    async publish(
      tenantId,
      type = 'alert.created',
      data = { alert_id: `alr_${randomBytes(4).toString('hex')}` },
    ) {
      const envelope = newEventEnvelope(tenantId, type, data);
      await publisher.publish(envelope);
      return envelope;
    },
    async close() {
      for (const running of engines.reverse()) {
        await running.close().catch(() => undefined);
      }
      await api.close();
      await deleteStreams(nats, settings);
      await nats.close();
      await database.drop();
    },
  };
}
