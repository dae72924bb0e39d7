import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchNamespace } from './bench-stack';
import { BenchSettings } from './bench-settings';
import { memoryOf } from './process-stats';
import { freePort, ServiceProcess } from './service-process';
import { MetricSample, parseMetrics } from './stats';

/** The environment every app of the run shares: one database, one JetStream namespace. */
export function appEnvironment(
  settings: BenchSettings,
  ns: BenchNamespace,
  databaseUrl: string,
  encryptionKey: string,
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    NATS_URL: settings.natsUrl,
    NATS_SUBJECT_ROOT: ns.subjectRoot,
    EVENTS_STREAM: ns.eventsStream,
    DEAD_LETTER_STREAM: ns.deadLetterStream,
    DELIVERY_CONSUMER: ns.consumer,
    SECRET_ENCRYPTION_KEY: encryptionKey,
    DELIVERY_EXTRA_CA_FILE: resolve(settings.repoRoot, 'test/fixtures/tls/ca.pem'),
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    DELIVERY_MAX_CONCURRENCY: String(settings.concurrency),
    DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: String(settings.perEndpoint),
  };
}

/** The delivery engine, built, as its own process (`node dist/apps/delivery/src/main.js`). */
export class EngineProcess {
  private constructor(
    private readonly service: ServiceProcess,
    private readonly baseUrl: string,
  ) {}

  static async start(
    settings: BenchSettings,
    env: NodeJS.ProcessEnv,
    ns: BenchNamespace,
    nc: NatsConnection,
    register: (engine: EngineProcess) => void,
  ): Promise<EngineProcess> {
    const port = await freePort();
    const service = new ServiceProcess(
      'engine',
      resolve(settings.repoRoot, 'dist/apps/delivery/src/main.js'),
      { ...env, DELIVERY_PORT: String(port) },
      { cwd: settings.repoRoot, nodeArgs: settings.engineNodeArgs },
    );
    const engine = new EngineProcess(service, `http://127.0.0.1:${port}`);
    register(engine);
    await service.waitForHttp(`${engine.baseUrl}/readyz`, 30_000);
    await waitForConsumer(nc, ns, () => service.running);
    return engine;
  }

  get pid(): number {
    return this.service.pid;
  }

  get running(): boolean {
    return this.service.running;
  }

  async metrics(): Promise<MetricSample[]> {
    const response = await fetch(`${this.baseUrl}/metrics`);
    return parseMetrics(await response.text());
  }

  memory(): { peakRssMiB: number; rssMiB: number } {
    return memoryOf(this.service.pid);
  }

  /**
   * SIGTERM: the engine finishes and records what it holds, then exits (0 when clean); SIGKILL
   * after `graceMs` (exit code null).
   */
  stop(graceMs?: number): Promise<number | null> {
    return this.service.stop(graceMs);
  }

  kill(): void {
    this.service.kill();
  }
}

/** The engine provisions its consumer once NATS answers; it consumes right after. */
async function waitForConsumer(
  nc: NatsConnection,
  ns: BenchNamespace,
  alive: () => boolean,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && alive()) {
    try {
      await jsm.consumers.info(ns.eventsStream, ns.consumer);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error('the engine did not provision its JetStream consumer within 30 s');
}
