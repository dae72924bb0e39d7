import type { NatsConnection } from '@nats-io/nats-core';
import { SubjectScheme } from '@svc/contracts';
import { EventPublisher } from '@svc/event-publisher';
import { resolve } from 'node:path';
import { BenchEvents } from '../bench-events';
import { EngineFootprint, NamedRun, RawResult } from '../bench-report';
import { EngineRunContext, EngineRunResult, measureEngineRun, publishBurst } from '../bench-runs';
import type { BenchSettings, ScenarioName } from '../bench-settings';
import {
  BenchEndpoint,
  BenchEndpointFilter,
  BenchEndpointOrdering,
  BenchNamespace,
  createDatabase,
  createTenantWithKey,
  deleteStreams,
  dropDatabase,
  newNamespace,
  registerEndpoints,
} from '../bench-stack';
import type { Cleanup } from '../cleanup';
import { DeliveryLogProbe } from '../delivery-log-probe';
import { MemorySampler } from '../memory-sampler';
import { appEnvironment, EngineProcess } from '../engine-process';
import { benchCpuGroups, CpuGroups, CpuMeter, cpuOf, cpuSecondsOf } from '../process-stats';
import { RawClient } from '../raw-ceiling';
import { ReceiverProcess } from '../receiver-process';
import type { PortBehaviour } from '../receiver-protocol';
import { freePort, startBuiltApp } from '../service-process';
import { MetricsDelta } from '../stats';

/**
 * How long an engine may take to stop after SIGTERM before it is killed: longer than the
 * product's DELIVERY_TIMEOUT (10 s) plus its drain, so that a slow stop is measured, not cut.
 */
const STOP_GRACE_MS = 60_000;

/** What every scenario gets from the bench: settings, NATS, its own cleanup, a log. */
export interface ScenarioKit {
  name: ScenarioName;
  settings: BenchSettings;
  nc: NatsConnection;
  /** The scenario's own undo steps, run when it ends (or on Ctrl-C). */
  cleanup: Cleanup;
  encryptionKey: string;
  log: (message: string) => void;
}

/** The scenario-specific part of a report; the bench adds date, commit, machine and contention. */
export interface ScenarioOutcome {
  description: string;
  settings: Record<string, unknown>;
  figures: Record<string, number | string | null | import('../bench-report').Spread>;
  targets: import('../bench-report').TargetCheck[];
  engines: EngineFootprint[];
  runs: NamedRun[];
}

/** The receiver of a scenario: `ports` HTTPS ports, answering as `behaviours` says (by index). */
export async function startReceiver(
  kit: ScenarioKit,
  ports: number,
  behaviours: Record<number, PortBehaviour> = {},
): Promise<ReceiverProcess> {
  const receiver = await ReceiverProcess.start(ports);
  kit.cleanup.add('receiver', () => receiver.stop());
  const { answerDelayMs } = kit.settings;
  const all: Record<number, PortBehaviour> = {};
  for (let index = 0; index < ports; index += 1) {
    all[index] = behaviours[index] ?? { status: 200, delayMs: answerDelayMs, counted: true };
  }
  receiver.configure(all);
  kit.log(`receiver (pid ${receiver.pid}) listening on ${ports} ports`);
  return receiver;
}

/**
 * One database, JetStream namespace, tenant and set of endpoints (registered through the built
 * API), and the engines that consume it. Scenarios that compare two setups make two stacks.
 */
export class Stack {
  readonly engines: EngineProcess[] = [];
  private readonly samplers = new Map<EngineProcess, MemorySampler>();

  private constructor(
    private readonly kit: ScenarioKit,
    readonly label: string,
    readonly ns: BenchNamespace,
    readonly databaseUrl: string,
    readonly env: NodeJS.ProcessEnv,
    readonly tenantId: string,
    readonly endpoints: BenchEndpoint[],
    readonly probe: DeliveryLogProbe,
    readonly publisher: EventPublisher,
  ) {}

  /**
   * Creates the stack; its endpoints are the receiver's ports `from` to `from + count`, each
   * subscribed to `eventsOf(index)` (every alert by default) with the ordering `orderingOf(index)`
   * and the payload filter `filterOf(index)` (the API's defaults by default).
   */
  static async prepare(
    kit: ScenarioKit,
    label: string,
    receiver: ReceiverProcess,
    options: {
      from?: number;
      count?: number;
      eventsOf?: (index: number) => string[];
      orderingOf?: (index: number) => BenchEndpointOrdering | undefined;
      filterOf?: (index: number) => BenchEndpointFilter | undefined;
      engineEnv?: NodeJS.ProcessEnv;
    } = {},
  ): Promise<Stack> {
    const { settings, nc, cleanup } = kit;
    const ns = newNamespace();
    kit.log(`${label}: database ${ns.database}, streams ${ns.eventsStream}`);
    cleanup.add(`database (${label})`, () => dropDatabase(settings.postgresUrl, ns.database));
    const databaseUrl = await createDatabase(settings.postgresUrl, ns);
    cleanup.add(`streams (${label})`, () => deleteStreams(nc, ns));
    const env = {
      ...appEnvironment(settings, ns, databaseUrl, kit.encryptionKey),
      ...options.engineEnv,
    };
    const { tenantId, key } = await createTenantWithKey(databaseUrl);
    const apiPort = await freePort();
    const api = await startBuiltApp('api', apiPort, env, settings.repoRoot, cleanup);
    const from = options.from ?? 0;
    const ports = receiver.ports.slice(from, from + (options.count ?? receiver.ports.length));
    const endpoints = await registerEndpoints(
      `http://127.0.0.1:${apiPort}`,
      key,
      ports,
      options.eventsOf,
      options.orderingOf,
      options.filterOf,
    );
    await api.stop();
    kit.log(`${label}: ${endpoints.length} endpoints registered through the API`);
    const probe = await DeliveryLogProbe.open(databaseUrl);
    cleanup.add(`probe (${label})`, () => probe.close());
    const publisher = new EventPublisher(nc, new SubjectScheme(ns.subjectRoot));
    return new Stack(kit, label, ns, databaseUrl, env, tenantId, endpoints, probe, publisher);
  }

  /** Starts `count` more engine processes on the stack's consumer. */
  async startEngines(count = 1): Promise<EngineProcess[]> {
    const started: EngineProcess[] = [];
    for (let index = 0; index < count; index += 1) {
      const engine = await EngineProcess.start(
        this.kit.settings,
        this.env,
        this.ns,
        this.kit.nc,
        (process) =>
          this.kit.cleanup.add(`engine (${this.label})`, async () => {
            await process.stop();
          }),
      );
      this.kit.log(`${this.label}: engine (pid ${engine.pid}) consuming`);
      this.engines.push(engine);
      const sampler = new MemorySampler(engine);
      this.samplers.set(engine, sampler);
      this.kit.cleanup.add(`memory sampler (${this.label})`, () => Promise.resolve(sampler.stop()));
      started.push(engine);
    }
    return started;
  }

  context(
    receiver: ReceiverProcess,
    events: BenchEvents,
    deliveriesPerEvent: number,
  ): EngineRunContext {
    return {
      engines: this.engines,
      receiver,
      probe: this.probe,
      publisher: this.publisher,
      events,
      tenantId: this.tenantId,
      deliveriesPerEvent,
      cpuGroups: engineCpuGroups(receiver, this.engines),
      timeoutMs: this.kit.settings.timeoutSeconds * 1000,
    };
  }

  /**
   * The most resident memory any of the engines was sampled at since the last call (or since it
   * started), or has now, in MiB: a phase's own peak, where VmHWM is the whole life's.
   */
  takePeakRssMiB(): number {
    let peak = 0;
    for (const sampler of this.samplers.values()) {
      peak = Math.max(peak, sampler.peakSample?.rssMiB ?? 0, sampler.rssNowMiB());
      sampler.resetPeak();
    }
    return peak;
  }

  /** Reads each engine's memory and CPU, then stops it (SIGTERM: it must exit 0). */
  async stopEngines(): Promise<EngineFootprint[]> {
    const footprints: EngineFootprint[] = [];
    for (const [index, engine] of this.engines.entries()) {
      const memory = engine.memory();
      const metrics = new MetricsDelta([], await engine.metrics());
      const cpuSeconds = cpuSecondsOf(engine.pid);
      const stopping = performance.now();
      const exitCode = (await engine.stop(STOP_GRACE_MS)) ?? null;
      const stopSeconds = (performance.now() - stopping) / 1000;
      const sampler = this.samplers.get(engine)!;
      sampler.stop();
      footprints.push({
        label: this.engines.length > 1 ? `${this.label} #${index + 1}` : this.label,
        peakRssMiB: memory.peakRssMiB,
        rssAtStartMiB: sampler.rssAtStartMiB,
        rssAtEndMiB: memory.rssMiB,
        heapUsedMiB: metrics.latest('nodejs_heap_size_used_bytes') / 2 ** 20,
        heapTotalMiB: metrics.latest('nodejs_heap_size_total_bytes') / 2 ** 20,
        cpuSeconds,
        stopSeconds,
        exitCode,
        atPeak: sampler.peakSample ?? null,
      });
    }
    return footprints;
  }
}

/**
 * The bench's CPU groups with the engines as one group: its total, and its kernel part. Other
 * stacks' engines, idle meanwhile, count under `other`.
 */
export function engineCpuGroups(receiver: ReceiverProcess, engines: EngineProcess[]): CpuGroups {
  const pids = () => engines.map((engine) => engine.pid);
  return {
    ...benchCpuGroups({ receiver: receiver.pid }),
    engine: () => cpuOf(pids()),
    'engine (kernel)': () => cpuOf(pids(), 'system'),
  };
}

/** Warms a stack's engines with a burst (JIT, connections to every endpoint, caches). */
export async function warmUp(
  kit: ScenarioKit,
  context: EngineRunContext,
  label: string,
): Promise<EngineRunResult | null> {
  if (kit.settings.warmupEvents === 0) {
    return null;
  }
  const run = await measureEngineRun(context, `${label} warm-up`, kit.settings.warmupEvents, (n) =>
    publishBurst(context.publisher, context.events, n),
  );
  kit.log(
    `${label} warm-up: ${run.deliveries} deliveries, ${Math.round(run.deliveriesPerSecond)}/s`,
  );
  return run;
}

/** A burst of `events` events, all published at once, measured to durable. */
export async function burst(
  kit: ScenarioKit,
  context: EngineRunContext,
  name: string,
  events: number,
): Promise<EngineRunResult> {
  kit.cleanup.check();
  kit.log(`${name}: ${events} events x ${context.deliveriesPerEvent} deliveries`);
  const run = await measureEngineRun(context, name, events, (n) =>
    publishBurst(context.publisher, context.events, n),
  );
  kit.log(
    `${name}: ${Math.round(run.deliveriesPerSecond)} deliveries/s, ` +
      `${run.engineCpuSecondsPer1000.toFixed(3)} engine CPU s per 1,000`,
  );
  return run;
}

/** The raw client of a stack's endpoints: the same signed bodies, nothing recorded. */
export function rawClient(kit: ScenarioKit, stack: Stack, events: BenchEvents): RawClient {
  const raw = new RawClient(stack.endpoints, events, {
    caFile: resolve(kit.settings.repoRoot, 'test/fixtures/tls/ca.pem'),
    connectionsPerOrigin: kit.settings.perEndpoint,
  });
  kit.cleanup.add('raw client', () => raw.close());
  return raw;
}

/** `deliveries` raw POSTs with `concurrency` in flight; every one must succeed. */
export async function rawRun(
  kit: ScenarioKit,
  raw: RawClient,
  receiver: ReceiverProcess,
  name: string,
  deliveries: number,
  concurrency: number,
): Promise<RawResult> {
  kit.cleanup.check();
  receiver.phase(name);
  const cpu = new CpuMeter(benchCpuGroups({ receiver: receiver.pid }));
  const run = await raw.run(deliveries, concurrency);
  if (run.failures > 0) {
    throw new Error(`${name}: ${run.failures} POSTs failed; the receiver is not sound`);
  }
  const result = {
    ...run,
    deliveriesPerSecond: run.requests / (run.elapsedMs / 1000),
    cpuCores: cpu.coresUsed(),
  };
  kit.log(`${name}: ${deliveries} POSTs, ${Math.round(result.deliveriesPerSecond)}/s`);
  return result;
}
