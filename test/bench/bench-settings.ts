import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** What `npm run bench` measures, from BENCH_* environment variables (README of test/bench). */
export interface BenchSettings {
  /** Events published in each measured engine run; each goes to every endpoint. */
  events: number;
  /** Events published before measuring, to warm the engine (JIT, connections, caches). */
  warmupEvents: number;
  endpoints: number;
  /** Attempts in flight: the engine's DELIVERY_MAX_CONCURRENCY and the raw client's workers. */
  concurrency: number;
  /** Connections per endpoint origin: DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT and the raw pool. */
  perEndpoint: number;
  /** Size of each event envelope as published and delivered. */
  bodyBytes: number;
  /** Raw ceiling, then engine: this many times, against the same receiver and engine process. */
  rounds: number;
  /** A paced run after the throughput runs, for latency below saturation; 0 skips it. */
  pacedSeconds: number;
  /** Its load as a fraction of the engine's measured throughput. */
  pacedLoad: number;
  /** A measured run that has not finished after this long fails the bench. */
  timeoutSeconds: number;
  /** Extra node options for the engine process, e.g. `--cpu-prof --cpu-prof-dir=prof`. */
  engineNodeArgs: string[];
  postgresUrl: string;
  natsUrl: string;
  repoRoot: string;
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
  return {
    events: integer(env, 'BENCH_EVENTS', 500, 1),
    warmupEvents: integer(env, 'BENCH_WARMUP_EVENTS', 40, 0),
    endpoints: integer(env, 'BENCH_ENDPOINTS', 100, 1),
    concurrency: integer(env, 'BENCH_CONCURRENCY', 256, 1),
    perEndpoint: integer(env, 'BENCH_PER_ENDPOINT', 8, 1),
    bodyBytes: integer(env, 'BENCH_BODY_BYTES', 1024, 400),
    rounds: integer(env, 'BENCH_ROUNDS', 2, 1),
    pacedSeconds: integer(env, 'BENCH_PACED_SECONDS', 10, 0),
    pacedLoad: fraction(env, 'BENCH_PACED_LOAD', 0.5),
    timeoutSeconds: integer(env, 'BENCH_TIMEOUT_SECONDS', 300, 10),
    engineNodeArgs: (env.BENCH_ENGINE_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
    postgresUrl: env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    natsUrl: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
    repoRoot,
    resultsFile: resolve(repoRoot, env.BENCH_RESULTS_FILE ?? 'test-results/bench.json'),
  };
}

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
