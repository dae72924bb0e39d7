import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { migrateDatabase, openDataSource } from '@svc/database';
import { ApiKeysService } from '@svc/identity';
import { TenantsService } from '@svc/tenants';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import { cpuSecondsOf, memoryOf } from '../../bench/process-stats';
import { freePort } from '../../support/free-port';
import { TEST_CA_FILE } from '../../support/https-receiver';
import { PrivatePostgres, startPrivatePostgres } from '../../support/private-postgres';
import { AppProcess, ExitStatus } from './app-process';
import { connectionPortsOf } from './connections';
import { noteStarted } from './leftovers';
import { EventLoad } from './event-load';
import { parseMetrics, sumOf } from './metrics';
import { PrivateNats, startPrivateNats } from './private-nats';
import { ReceivedPost, RecordingReceiver } from './recording-receiver';
import { APPS_ROOT, RESULTS_DIR } from './settings';
import { ENDPOINTS, TENANTS, TenantName } from './topology';

const DAY_MS = 24 * 3600_000;

/** How an engine's life ended: kill -9 (a crash window), SIGTERM, or still running. */
export type EngineEnding = 'killed' | 'terminated' | 'running';

/** What an engine reported about itself when it was stopped after the scenario had settled. */
export interface EngineCounters {
  scrapedAt: number;
  attemptsSucceeded: number;
  attemptsFailed: number;
  concurrentAttempts: number;
  eventsReceived: number;
  eventsDuplicate: number;
  commitFailures: number;
}

export interface RssSample {
  at: number;
  rssMiB: number;
}

/** One engine process from its start to its end. */
export class EngineLife {
  endedAt: number | null = null;
  /** When it first answered /readyz (RSS before that is a process still loading). */
  readyAt: number | null = null;
  ending: EngineEnding = 'running';
  exit: ExitStatus | null = null;
  counters: EngineCounters | null = null;
  readonly rss: RssSample[] = [];
  cpuSeconds = NaN;
  peakRssMiB = NaN;
  /** Local ports of its connections to the receivers when it was killed. */
  portsAtKill = new Set<number>();
  /**
   * Local ports of its connections to the receivers, read at each sample and at its end: which
   * engine sent a POST, for a person reading a finding (a connection opened and closed between
   * two samples is not seen).
   */
  readonly portsSeen = new Set<number>();
  private sampler: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    readonly process: AppProcess,
    readonly managementUrl: string,
    sampleEveryMs: number,
    private readonly receiverPorts: () => Set<number>,
  ) {
    this.sample();
    this.sampler = setInterval(() => this.sample(), sampleEveryMs);
  }

  get startedAt(): number {
    return this.process.startedAt;
  }

  get running(): boolean {
    return this.process.running;
  }

  /** RSS now, and the process's peak so far (VmHWM), while it runs. */
  sample(): void {
    if (!this.process.running) {
      return;
    }
    try {
      connectionPortsOf(this.process.pid, this.receiverPorts()).forEach((port) =>
        this.portsSeen.add(port),
      );
      const { rssMiB, peakRssMiB } = memoryOf(this.process.pid);
      this.rss.push({ at: Date.now(), rssMiB });
      this.peakRssMiB = peakRssMiB;
      this.cpuSeconds = cpuSecondsOf(this.process.pid);
    } catch {
      // it ended meanwhile
    }
  }

  async scrapeCounters(): Promise<EngineCounters> {
    const response = await fetch(`${this.managementUrl}/metrics`, {
      signal: AbortSignal.timeout(5000),
    });
    const samples = parseMetrics(await response.text());
    this.counters = {
      scrapedAt: Date.now(),
      attemptsSucceeded: sumOf(samples, 'svc_delivery_attempts_total', { outcome: 'succeeded' }),
      attemptsFailed: sumOf(samples, 'svc_delivery_attempts_total', { outcome: 'failed' }),
      concurrentAttempts: sumOf(samples, 'svc_delivery_concurrent_attempts_total'),
      eventsReceived: sumOf(samples, 'svc_delivery_events_received_total'),
      eventsDuplicate: sumOf(samples, 'svc_delivery_events_duplicate_total'),
      commitFailures: sumOf(samples, 'svc_delivery_commit_failures_total'),
    };
    return this.counters;
  }

  async kill(): Promise<void> {
    this.sample();
    if (this.process.running) {
      this.portsAtKill = connectionPortsOf(this.process.pid, this.receiverPorts());
      this.portsAtKill.forEach((port) => this.portsSeen.add(port));
    }
    this.endedAt = Date.now();
    this.ending = 'killed';
    this.exit = await this.process.kill();
    this.stopSampling();
  }

  async terminate(): Promise<ExitStatus> {
    this.sample();
    this.ending = 'terminated';
    const signalledAt = Date.now();
    this.exit = await this.process.stop();
    // The engine records what it has in flight before it exits: its life lasts until then, but a
    // crash window it is not (a graceful stop promises every in-flight attempt recorded).
    this.endedAt = Math.max(signalledAt, Date.now());
    this.stopSampling();
    return this.exit;
  }

  private stopSampling(): void {
    clearInterval(this.sampler);
    this.sampler = undefined;
  }
}

export interface FaultStackOptions {
  scenario: string;
  /** Engine settings for this scenario (they override the suite's defaults). */
  engineEnv?: NodeJS.ProcessEnv;
  /** How often each engine's RSS is sampled. */
  rssSampleEveryMs?: number;
  /** Progress of the set-up, for a person watching. */
  log?: (message: string) => void;
  /**
   * The NATS the scenario runs on; one private nats-server when absent. A cluster gives its
   * servers' URLs joined by commas in `url` (what `NATS_URL` takes).
   */
  startNats?: () => Promise<PrivateNats>;
  /**
   * The PostgreSQL the scenario runs on; one private cluster when absent. Its `url()` is what
   * every app and the checker connect to (a primary behind a forwarder, say).
   */
  startPostgres?: () => Promise<PrivatePostgres>;
}

/** The suite's defaults: a retry schedule and an ack wait short enough for minutes-long runs. */
export const DEFAULT_ENGINE_ENV: NodeJS.ProcessEnv = {
  DELIVERY_CONSUMER_ACK_WAIT: '5s',
  DELIVERY_RETRY_SCHEDULE: '1s,2s,3s',
  DELIVERY_MAX_ATTEMPTS: '12',
  DELIVERY_TIMEOUT: '5s',
  DELIVERY_SCHEDULER_INTERVAL: '200ms',
};

/**
 * Everything one scenario runs against, all of its own: a PostgreSQL cluster (`initdb` in a
 * temporary folder, a free port), a nats-server with JetStream (a free port, a temporary store),
 * the built API (to register the endpoints) and engines (`dist/`), and one HTTPS receiver per
 * endpoint. Never the shared servers: the environment of every process is built here from
 * nothing but these, so a variable of the calling shell cannot point an engine elsewhere.
 */
export class FaultStack {
  readonly engines: EngineLife[] = [];
  readonly receivers = new Map<string, RecordingReceiver>();
  readonly endpointIds = new Map<string, string>();
  /** Each endpoint's signing secret, by endpoint name. */
  readonly secrets = new Map<string, string>();
  private readonly keys = new Map<TenantName, string>();
  tenantIds = {} as Record<TenantName, string>;
  load!: EventLoad;
  /** The scenario's client connection (publishing, consumer info); it reconnects by itself. */
  nats!: NatsConnection;
  /** Queries of the checker and the waits; its connections come and go with the server. */
  db!: Pool;
  readonly names: {
    subjectRoot: string;
    eventsStream: string;
    deadLetterStream: string;
    consumer: string;
  };
  readonly logDir: string;
  private readonly secretKey = randomBytes(32).toString('base64');
  private engineCount = 0;
  private apiStopped: Promise<unknown> = Promise.resolve();
  private prewarmed: Promise<EngineLife> | undefined;

  private constructor(
    readonly options: FaultStackOptions,
    readonly postgres: PrivatePostgres,
    readonly natsServer: PrivateNats,
    readonly databaseUrl: string,
  ) {
    const tag = randomBytes(3).toString('hex');
    this.names = {
      subjectRoot: `faults_${tag}`,
      eventsStream: `FAULTS_${tag}_EVENTS`,
      deadLetterStream: `FAULTS_${tag}_DEAD_LETTER`,
      consumer: `faults_${tag}_delivery`,
    };
    this.logDir = join(RESULTS_DIR, 'logs', options.scenario);
  }

  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const [postgres, natsServer] = await Promise.allSettled([
      (options.startPostgres ?? startPrivatePostgres)(),
      (options.startNats ?? startPrivateNats)(),
    ]);
    if (postgres.status === 'rejected' || natsServer.status === 'rejected') {
      await (postgres.status === 'fulfilled' ? postgres.value.stop() : undefined);
      await (natsServer.status === 'fulfilled' ? natsServer.value.close() : undefined);
      throw postgres.status === 'rejected'
        ? postgres.reason
        : (natsServer as PromiseRejectedResult).reason;
    }
    noteStarted({ kind: 'postgres', folder: dirname(postgres.value.logFile) });
    options.log?.('PostgreSQL cluster and nats-server up');
    const stack = new FaultStack(options, postgres.value, natsServer.value, postgres.value.url());
    try {
      await stack.prepare();
      return stack;
    } catch (error) {
      await stack.close();
      throw error;
    }
  }

  private async prepare(): Promise<void> {
    rmSync(this.logDir, { recursive: true, force: true });
    mkdirSync(this.logDir, { recursive: true });
    // The schema as `svc migrate` makes it, with the partitions of the coming minutes.
    await migrateDatabase(this.databaseUrl, {
      retentionMs: 30 * DAY_MS,
      partitionWidthMs: DAY_MS,
      aheadPartitions: 2,
    });
    this.options.log?.('migrated');
    // The first engine boots while the API registers the endpoints: on a small machine, starting
    // a Nest app takes seconds, and the engine needs no endpoint until the first event.
    const first = this.launchEngine();
    first.catch(() => undefined);
    this.prewarmed = first;
    this.db = new Pool({
      connectionString: this.databaseUrl,
      max: 3,
      connectionTimeoutMillis: 3000,
    });
    // A server restart ends idle pooled connections: the pool drops them and opens new ones.
    this.db.on('error', () => undefined);
    this.nats = await connect({
      servers: this.natsServer.url.split(','),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 200,
      name: 'fault-suite',
    });
    await this.createTenants();
    await this.registerEndpoints();
    this.load = new EventLoad(this.nats, this.names.subjectRoot, this.tenantIds);
  }

  /** Tenants and their webhooks:manage keys, with the services the admin CLI uses. */
  private async createTenants(): Promise<Record<TenantName, string>> {
    const dataSource = await openDataSource({ url: this.databaseUrl, poolSize: 1 });
    try {
      for (const tenant of TENANTS) {
        const created = await new TenantsService(dataSource).create(`fault suite ${tenant}`);
        this.tenantIds[tenant] = created.id;
        const { key } = await new ApiKeysService(dataSource).create({
          tenantId: created.id,
          scopes: ['webhooks:manage'],
          environment: 'live',
        });
        this.keys.set(tenant, key);
      }
    } finally {
      await dataSource.destroy();
    }
    return this.tenantIds;
  }

  /** One receiver per endpoint, registered through the built API (`POST /v1/webhooks`). */
  private async registerEndpoints(): Promise<void> {
    const port = await freePort();
    const managementPort = await freePort();
    const api = new AppProcess(
      'api',
      resolve(APPS_ROOT, 'dist/apps/api/src/main.js'),
      { ...this.appEnv(), API_PORT: String(port), API_MANAGEMENT_PORT: String(managementPort) },
      { cwd: APPS_ROOT, logFile: join(this.logDir, 'api.log') },
    );
    try {
      await api.waitForHttp(`http://127.0.0.1:${managementPort}/readyz`, 60_000);
      this.options.log?.('API ready');
      for (const plan of ENDPOINTS) {
        const secret = `faults-${randomBytes(16).toString('hex')}`;
        const receiver = await RecordingReceiver.start(plan.name, secret);
        this.receivers.set(plan.name, receiver);
        this.secrets.set(plan.name, secret);
        const response = await fetch(`http://127.0.0.1:${port}/v1/webhooks`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${this.keys.get(plan.tenant)}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            url: receiver.url,
            events: plan.events,
            secret,
            ...(plan.ordering === undefined ? {} : { ordering: plan.ordering }),
          }),
        });
        const text = await response.text();
        if (response.status !== 201) {
          throw new Error(`registering ${plan.name} failed: ${response.status} ${text}`);
        }
        const registered = JSON.parse(text) as { id: string; ordering?: string };
        // A FIFO endpoint registered as unordered would pass the ledger's FIFO check by luck.
        if (registered.ordering !== (plan.ordering ?? 'unordered')) {
          throw new Error(
            `registering ${plan.name}: ordering ${String(registered.ordering)} in the answer, not ${plan.ordering ?? 'unordered'}`,
          );
        }
        this.endpointIds.set(plan.name, registered.id);
      }
    } finally {
      // The API has done its part (the scenario's CPU goes to the engines); it stops meanwhile.
      this.apiStopped = api.stop();
    }
    this.options.log?.('endpoints registered');
  }

  /** The environment of every app: these private servers and names only. */
  appEnv(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'info',
      HOST: '127.0.0.1',
      DATABASE_URL: this.databaseUrl,
      NATS_URL: this.natsServer.url,
      NATS_SUBJECT_ROOT: this.names.subjectRoot,
      EVENTS_STREAM: this.names.eventsStream,
      DEAD_LETTER_STREAM: this.names.deadLetterStream,
      DELIVERY_CONSUMER: this.names.consumer,
      SECRET_ENCRYPTION_KEY: this.secretKey,
      DELIVERY_EXTRA_CA_FILE: TEST_CA_FILE,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    };
  }

  engineEnv(): NodeJS.ProcessEnv {
    return { ...this.appEnv(), ...DEFAULT_ENGINE_ENV, ...this.options.engineEnv };
  }

  /**
   * A built engine as its own process; resolves once it is ready (PostgreSQL, NATS, consumer).
   * The first call takes the engine started with the stack.
   */
  async startEngine(): Promise<EngineLife> {
    const prewarmed = this.prewarmed;
    this.prewarmed = undefined;
    return prewarmed ?? this.launchEngine();
  }

  private async launchEngine(): Promise<EngineLife> {
    this.engineCount += 1;
    const name = `engine-${this.engineCount}`;
    const port = await freePort();
    const child = new AppProcess(
      name,
      resolve(APPS_ROOT, 'dist/apps/delivery/src/main.js'),
      { ...this.engineEnv(), DELIVERY_PORT: String(port) },
      { cwd: APPS_ROOT, logFile: join(this.logDir, `${name}.log`) },
    );
    const life = new EngineLife(
      name,
      child,
      `http://127.0.0.1:${port}`,
      this.options.rssSampleEveryMs ?? 2000,
      () => new Set([...this.receivers.values()].map((receiver) => receiver.port)),
    );
    this.engines.push(life);
    await child.waitForHttp(`${life.managementUrl}/readyz`, 90_000);
    life.readyAt = Date.now();
    return life;
  }

  /** Every POST the receivers recorded so far. */
  posts(): ReceivedPost[] {
    return [...this.receivers.values()].flatMap((receiver) => receiver.posts);
  }

  /** POSTs the receivers are answering right now (attempts in flight). */
  inFlight(): number {
    return this.posts().filter((post) => post.outcome === 'unanswered').length;
  }

  /** Resolves once the receivers have accepted `count` more POSTs than they had when called. */
  async whenAccepted(count: number, timeoutMs = 90_000): Promise<void> {
    const accepted = () => this.posts().filter((post) => post.outcome === 'accepted').length;
    const target = accepted() + count;
    const deadline = Date.now() + timeoutMs;
    while (accepted() < target) {
      if (Date.now() > deadline) {
        throw new Error(`the receivers did not accept ${count} more POSTs within ${timeoutMs} ms`);
      }
      await sleep(50);
    }
  }

  runningEngines(): EngineLife[] {
    return this.engines.filter((life) => life.ending === 'running' && life.running);
  }

  /** The consumer's messages not yet handed out, and handed out but not acknowledged. */
  async consumerBacklog(): Promise<{ pending: number; ackPending: number } | null> {
    try {
      const jsm = await jetstreamManager(this.nats, { timeout: 2000 });
      const info = await jsm.consumers.info(this.names.eventsStream, this.names.consumer);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    } catch {
      return null;
    }
  }

  /** Messages parked on the dead-letter stream (none is expected: every event is valid). */
  async deadLetters(): Promise<number | null> {
    try {
      const jsm = await jetstreamManager(this.nats, { timeout: 2000 });
      return (await jsm.streams.info(this.names.deadLetterStream)).state.messages;
    } catch {
      return null;
    }
  }

  /** Stops whatever still runs and removes the servers' folders; the logs stay. */
  async close(): Promise<void> {
    await this.prewarmed?.catch(() => undefined);
    for (const life of this.engines.filter((engine) => engine.ending === 'running')) {
      await life.kill();
    }
    await this.apiStopped;
    for (const receiver of this.receivers.values()) {
      await receiver.close();
    }
    await this.nats?.close().catch(() => undefined);
    await this.db?.end().catch(() => undefined);
    // The servers' own logs join the apps' (a deadlock's detail is only in PostgreSQL's).
    await copyFile(this.postgres.logFile, join(this.logDir, 'postgres.log')).catch(() => undefined);
    await copyFile(this.natsServer.logFile, join(this.logDir, 'nats-server.log')).catch(
      () => undefined,
    );
    await this.natsServer.close().catch(() => undefined);
    await this.postgres.stop().catch(() => undefined);
  }
}
