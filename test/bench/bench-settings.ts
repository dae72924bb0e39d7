import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The Node options the engine's container runs with (deploy/kubernetes/base/delivery.yaml). */
export const DEPLOYED_ENGINE_NODE_ARGS = '--max-old-space-size=160';

/** The scenarios of `npm run bench`, in the order they run (README of test/bench). */
export const SCENARIOS = [
  'steady',
  'fan-out',
  'mixed',
  'backlog',
  'hot-endpoint',
  'replicas',
  'cost',
  'fifo',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** What `npm run bench` measures, from BENCH_* environment variables (README of test/bench). */
export interface BenchSettings {
  /** The scenarios to run, in SCENARIOS order. */
  scenarios: ScenarioName[];
  /** Events published in each measured burst (steady, backlog, replicas); each goes to every endpoint. */
  events: number;
  /** Events published before measuring, to warm each engine (JIT, connections, caches). */
  warmupEvents: number;
  endpoints: number;
  /** Attempts in flight: the engine's DELIVERY_MAX_CONCURRENCY and the raw client's workers. */
  concurrency: number;
  /** Connections per endpoint origin: DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT and the raw pool. */
  perEndpoint: number;
  /** Size of each event envelope as published and delivered. */
  bodyBytes: number;
  /** Raw ceiling, then engine: this many times (steady, fan-out, hot-endpoint). */
  rounds: number;
  /** Baseline, then the scenario's setup: this many times (backlog, replicas). */
  pairedRounds: number;
  /** How long healthy endpoints wait before answering 200. */
  answerDelayMs: number;
  /** A paced run after the throughput runs, for latency below saturation; 0 skips it. */
  pacedSeconds: number;
  /** Its load as a fraction of the engine's measured throughput. */
  pacedLoad: number;
  /** A measured run that has not finished after this long fails the bench. */
  timeoutSeconds: number;
  /** Extra node options for the engine process, e.g. `--cpu-prof --cpu-prof-dir=prof`. */
  engineNodeArgs: string[];
  fanOut: {
    /** Endpoints of the tenant; each subscribes to one of `endpoints / width` event types. */
    endpoints: number;
    /** Endpoints each event goes to. */
    width: number;
    /** Events per measured run. */
    events: number;
    /**
     * `matching`: every endpoint registered with a payload filter that the bench's events all
     * pass (FAN_OUT_MATCHING_FILTER), so the same deliveries are made and only the filters' cost
     * is added (issue 33 item 3); `none`: no filter.
     */
    filter: 'none' | 'matching';
  };
  mixed: {
    /** Share of the endpoints answering 500 (retried on the product's schedule). */
    failingShare: number;
    /** DELIVERY_TIMEOUT of both engines; one endpoint answers 2 s after it (it hangs past it). */
    timeoutSeconds: number;
    /**
     * The ordering of the failing and hanging endpoints: `fifo` shows that a failing FIFO
     * endpoint holds only its own queue (issue 32, ADR 0045).
     */
    failingOrdering: 'unordered' | 'fifo';
    /**
     * Rounds of the mixed stack, and of the baseline (one before them, the others after): the
     * figure is the median of each.
     */
    rounds: number;
  };
  backlog: {
    /** Deliveries pending a retry, written to PostgreSQL before the measured runs. */
    retries: number;
    /** Their retries fall due from this long after they were written ... */
    dueAfterSeconds: number;
    /** ... spread evenly over this long. */
    dueSpreadSeconds: number;
  };
  hotEndpoint: {
    /** Events per measured run, all to the one endpoint. */
    events: number;
    /** How long the endpoint takes to answer. */
    answerDelayMs: number;
  };
  cost: {
    /** Events per second, one paced run each (issue 18: 100, 200, 500 and 1,000). */
    rates: number[];
    /** How long each rate is published. */
    seconds: number;
    /** Events of the burst measured beside the rates. */
    burstEvents: number;
    /** How long the idle engine is measured. */
    idleSeconds: number;
    /** How long the floor process is measured at 200 events/s (0: not at all). */
    floorSeconds: number;
  };
  fifo: {
    /** Events of each measured run (unordered, then FIFO), all to the run's one endpoint. */
    events: number;
    /** How long the endpoint takes to answer. */
    answerDelayMs: number;
  };
  /** Engine processes on one consumer in the replicas scenario (against one). */
  replicas: number;
  postgresUrl: string;
  natsUrl: string;
  repoRoot: string;
  /** All scenarios' figures; each scenario's also beside it as bench-<scenario>.json. */
  resultsFile: string;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name}="${raw}" must be an integer of at least ${min}`);
  }
  return value;
}

function positiveIntegers(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  const values = raw.split(',').map((item) => Number(item.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new Error(`${name}="${raw}" must be integers of at least 1, comma-separated`);
  }
  return values;
}

/** One of `values`, the first by default. */
function oneOf<Value extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  values: readonly [Value, ...Value[]],
): Value {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') {
    return values[0];
  }
  if (!values.includes(raw as Value)) {
    throw new Error(`${name}="${raw}" must be one of ${values.join(', ')}`);
  }
  return raw as Value;
}

function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new Error(`${name}="${raw}" must be a number in (0, 1]`);
  }
  return value;
}

function scenarioList(env: NodeJS.ProcessEnv): ScenarioName[] {
  const raw = env.BENCH_SCENARIOS?.trim();
  if (!raw || raw === 'all') {
    return [...SCENARIOS];
  }
  const asked = raw.split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_SCENARIOS: unknown ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}, all`,
    );
  }
  return SCENARIOS.filter((name) => asked.includes(name));
}

/** The checkout: the folder holding nest-cli.json, above the compiled bench in dist/. */
export function findRepoRoot(from: string = __dirname): string {
  let folder = from;
  while (!existsSync(resolve(folder, 'nest-cli.json'))) {
    const parent = dirname(folder);
    if (parent === folder) {
      throw new Error(`no nest-cli.json above ${from}: run the bench from the checkout`);
    }
    folder = parent;
  }
  return folder;
}

export function loadBenchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const repoRoot = findRepoRoot();
  const settings: BenchSettings = {
    scenarios: scenarioList(env),
    events: integer(env, 'BENCH_EVENTS', 500, 1),
    warmupEvents: integer(env, 'BENCH_WARMUP_EVENTS', 40, 0),
    endpoints: integer(env, 'BENCH_ENDPOINTS', 100, 1),
    concurrency: integer(env, 'BENCH_CONCURRENCY', 256, 1),
    perEndpoint: integer(env, 'BENCH_PER_ENDPOINT', 8, 1),
    bodyBytes: integer(env, 'BENCH_BODY_BYTES', 1024, 400),
    rounds: integer(env, 'BENCH_ROUNDS', 3, 1),
    pairedRounds: integer(env, 'BENCH_PAIRED_ROUNDS', 2, 1),
    answerDelayMs: integer(env, 'BENCH_ANSWER_DELAY_MS', 0, 0),
    pacedSeconds: integer(env, 'BENCH_PACED_SECONDS', 10, 0),
    pacedLoad: fraction(env, 'BENCH_PACED_LOAD', 0.5),
    timeoutSeconds: integer(env, 'BENCH_TIMEOUT_SECONDS', 300, 10),
    // The engine runs as deploy/kubernetes/base/delivery.yaml starts it (its heap cap).
    engineNodeArgs: (env.BENCH_ENGINE_NODE_ARGS ?? DEPLOYED_ENGINE_NODE_ARGS)
      .split(/\s+/)
      .filter((arg) => arg !== ''),
    fanOut: {
      endpoints: integer(env, 'BENCH_FANOUT_ENDPOINTS', 200, 1),
      width: integer(env, 'BENCH_FANOUT_WIDTH', 50, 1),
      events: integer(env, 'BENCH_FANOUT_EVENTS', 600, 1),
      filter: oneOf(env, 'BENCH_FANOUT_FILTER', ['none', 'matching'] as const),
    },
    mixed: {
      failingShare: fraction(env, 'BENCH_MIXED_FAILING_SHARE', 0.1),
      timeoutSeconds: integer(env, 'BENCH_MIXED_TIMEOUT_SECONDS', 10, 1),
      failingOrdering: oneOf(env, 'BENCH_MIXED_FAILING_ORDERING', ['unordered', 'fifo'] as const),
      // Three by default (issue 35): its rounds spread widely, and a median of three means more
      // than one figure. BENCH_PAIRED_ROUNDS, which set it before, still does when given alone.
      rounds: integer(env, 'BENCH_MIXED_ROUNDS', integer(env, 'BENCH_PAIRED_ROUNDS', 3, 1), 1),
    },
    backlog: {
      retries: integer(env, 'BENCH_BACKLOG_RETRIES', 100_000, 0),
      dueAfterSeconds: integer(env, 'BENCH_BACKLOG_DUE_AFTER_SECONDS', 900, 0),
      dueSpreadSeconds: integer(env, 'BENCH_BACKLOG_DUE_SPREAD_SECONDS', 600, 0),
    },
    hotEndpoint: {
      events: integer(env, 'BENCH_HOT_EVENTS', 3000, 1),
      answerDelayMs: integer(env, 'BENCH_HOT_ANSWER_DELAY_MS', 6, 0),
    },
    cost: {
      rates: positiveIntegers(env, 'BENCH_COST_RATES', [100, 200, 500, 1000]),
      seconds: integer(env, 'BENCH_COST_SECONDS', 60, 1),
      burstEvents: integer(env, 'BENCH_COST_BURST_EVENTS', 20_000, 1),
      idleSeconds: integer(env, 'BENCH_COST_IDLE_SECONDS', 10, 1),
      floorSeconds: integer(env, 'BENCH_COST_FLOOR_SECONDS', 30, 0),
    },
    fifo: {
      events: integer(env, 'BENCH_FIFO_EVENTS', 300, 1),
      answerDelayMs: integer(env, 'BENCH_FIFO_ANSWER_DELAY_MS', 5, 0),
    },
    replicas: integer(env, 'BENCH_REPLICAS', 2, 2),
    postgresUrl: env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    natsUrl: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
    repoRoot,
    resultsFile: resolve(repoRoot, env.BENCH_RESULTS_FILE ?? 'test-results/bench.json'),
  };
  if (settings.fanOut.endpoints % settings.fanOut.width !== 0) {
    throw new Error('BENCH_FANOUT_ENDPOINTS must be a multiple of BENCH_FANOUT_WIDTH');
  }
  const groups = settings.fanOut.endpoints / settings.fanOut.width;
  if (groups > FAN_OUT_TYPES.length) {
    throw new Error(
      `BENCH_FANOUT_ENDPOINTS / BENCH_FANOUT_WIDTH must be at most ${FAN_OUT_TYPES.length} (the alert types)`,
    );
  }
  return settings;
}

/** The event types the fan-out scenario's groups of endpoints subscribe to, one each. */
export const FAN_OUT_TYPES = [
  'alert.created',
  'alert.severity_changed',
  'alert.acknowledged',
  'alert.escalated',
  'alert.closed',
] as const;

/** What `npm run bench:storage` measures, from BENCH_STORAGE_* variables (README of test/bench). */
export interface StorageBenchSettings {
  /** Part 1: events published at once, each to every endpoint; 0 skips the part. */
  events: number;
  endpoints: number;
  /**
   * DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT of both engines: with few endpoints, enough that the
   * engine's bound (BENCH_CONCURRENCY) is what limits, as in `npm run bench`.
   */
  perEndpoint: number;
  bodyBytes: number;
  /** Parts 2 and 3: the steady load, in events per second (each to every endpoint). */
  rate: number;
  /** How long the steady load runs; 0 skips parts 2 and 3. */
  minutes: number;
  /** DELIVERY_DATA_RETENTION and DELIVERY_DATA_PARTITION_WIDTH of the steady run, in minutes. */
  retentionMinutes: number;
  partitionMinutes: number;
  /** Storage is sampled this often during the steady load. */
  sampleSeconds: number;
  /** Publish-to-receipt latency is summarised per window this wide. */
  windowSeconds: number;
  /** Storage counts as flat when the end exceeds the value after the first period by at most this. */
  flatTolerance: number;
  resultsFile: string;
}

export function loadStorageBenchSettings(
  env: NodeJS.ProcessEnv = process.env,
): StorageBenchSettings {
  const repoRoot = findRepoRoot();
  const settings: StorageBenchSettings = {
    events: integer(env, 'BENCH_STORAGE_EVENTS', 2000, 0),
    endpoints: integer(env, 'BENCH_STORAGE_ENDPOINTS', 10, 1),
    perEndpoint: integer(env, 'BENCH_STORAGE_PER_ENDPOINT', 32, 1),
    bodyBytes: integer(env, 'BENCH_STORAGE_BODY_BYTES', 1024, 400),
    rate: integer(env, 'BENCH_STORAGE_RATE', 100, 1),
    minutes: integer(env, 'BENCH_STORAGE_MINUTES', 8, 0),
    retentionMinutes: integer(env, 'BENCH_STORAGE_RETENTION_MINUTES', 3, 1),
    partitionMinutes: integer(env, 'BENCH_STORAGE_PARTITION_MINUTES', 1, 1),
    sampleSeconds: integer(env, 'BENCH_STORAGE_SAMPLE_SECONDS', 15, 1),
    windowSeconds: integer(env, 'BENCH_STORAGE_WINDOW_SECONDS', 10, 1),
    flatTolerance: fraction(env, 'BENCH_STORAGE_FLAT_TOLERANCE', 0.25),
    resultsFile: resolve(
      repoRoot,
      env.BENCH_STORAGE_RESULTS_FILE ?? 'test-results/bench-storage.json',
    ),
  };
  if (settings.partitionMinutes > settings.retentionMinutes) {
    throw new Error(
      'BENCH_STORAGE_PARTITION_MINUTES must not exceed BENCH_STORAGE_RETENTION_MINUTES',
    );
  }
  return settings;
}
