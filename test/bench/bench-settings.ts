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
