import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { PLATFORM_EVENT_TYPES, SubjectScheme } from '@svc/contracts';
import { EventPublisher } from '@svc/event-publisher';
import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { BenchEvents } from './bench-events';
import { publishBurst, publishPaced } from './bench-runs';
import { cpuSecondsOf, cpuSecondsSince, postgresCpu } from './process-stats';
import type { ReceiverProcess } from './receiver-process';
import type { ScenarioKit, Stack } from './scenarios/scenario-kit';

/** What the floor process (floor-consumer.ts) cost at one paced rate. */
export interface FloorAtRate {
  eventsPerSecond: number;
  deliveries: number;
  cpuSecondsPer1000: number;
  /**
   * PostgreSQL's CPU per 1,000 meanwhile (every postgres process): what the numbering floor's
   * commit per event costs it, against the engine's figure; near nothing for the bare floor.
   */
  postgresCpuSecondsPer1000: number;
  publishToReceiptMs: { p50: number; p99: number };
}

const WARM_UP_EVENTS = 400;

/**
 * The floor's kinds: `bare` pulls, signs, POSTs and acknowledges; `numbering` also claims each
 * endpoint's next number durably before the POST (floor-consumer.ts), what any relay that
 * promises gap-free numbers surviving a crash must write (ADR 0045).
 */
export type FloorKind = 'bare' | 'numbering';

/** The numbering floor's tables, in the stack's database; dropped once measured. */
const NUMBERING_TABLES = `
  CREATE TABLE bench_floor_sequences (endpoint text PRIMARY KEY, last bigint NOT NULL);
  CREATE TABLE bench_floor_numbers (
    event_id text NOT NULL, endpoint text NOT NULL, sequence bigint NOT NULL,
    PRIMARY KEY (event_id, endpoint))`;
const DROP_NUMBERING_TABLES = 'DROP TABLE IF EXISTS bench_floor_sequences, bench_floor_numbers';

async function onDatabase(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Runs the floor process (floor-consumer.ts) at `rate` events per second for `seconds`, to the
 * same receiver and endpoints as the engine, from a stream of its own, after a warm-up burst; its
 * CPU per 1,000 deliveries is measured as the engine's is (/proc, every thread), from the first
 * publish to the last delivery's arrival at the receiver.
 */
export async function measureFloor(
  kit: ScenarioKit,
  receiver: ReceiverProcess,
  stack: Pick<Stack, 'ns' | 'tenantId' | 'endpoints' | 'databaseUrl'>,
  rate: number,
  seconds: number,
  kind: FloorKind = 'bare',
): Promise<FloorAtRate> {
  const { nc, settings, cleanup } = kit;
  const { tag } = stack.ns;
  const suffix = kind === 'bare' ? 'floor' : 'numbering_floor';
  const stream = `SVCBENCH_${tag}_${suffix.toUpperCase()}`;
  const root = `svcbench_${tag}_${suffix}`;
  const consumer = `svcbench_${tag}_${suffix}`;
  if (kind === 'numbering') {
    await onDatabase(stack.databaseUrl, `${DROP_NUMBERING_TABLES}; ${NUMBERING_TABLES}`);
    cleanup.add('numbering floor tables', () =>
      onDatabase(stack.databaseUrl, DROP_NUMBERING_TABLES).catch(() => undefined),
    );
  }
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${root}.>`] });
  // Deleted once measured; this undoes a run stopped half-way.
  cleanup.add('floor stream', () => jsm.streams.delete(stream).catch(() => undefined));
  await jsm.consumers.add(stream, { durable_name: consumer, ack_policy: AckPolicy.Explicit });
  const byType = Object.fromEntries(
    PLATFORM_EVENT_TYPES.map((type, index) => [type, stack.endpoints[index]]),
  );
  const child = spawn(process.execPath, [resolve(__dirname, 'floor-consumer.js')], {
    env: {
      ...process.env,
      NATS_URL: settings.natsUrl,
      FLOOR_STREAM: stream,
      FLOOR_CONSUMER: consumer,
      FLOOR_CA_FILE: resolve(settings.repoRoot, 'test/fixtures/tls/ca.pem'),
      FLOOR_CONNECTIONS: String(settings.perEndpoint),
      FLOOR_ENDPOINTS: JSON.stringify(byType),
      ...(kind === 'numbering' ? { FLOOR_DATABASE_URL: stack.databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanup.add('floor process', () => stopped(child));
  await ready(child);
  const publisher = new EventPublisher(nc, new SubjectScheme(root));
  const events = new BenchEvents(stack.tenantId, settings.bodyBytes, PLATFORM_EVENT_TYPES);
  const timeoutMs = settings.timeoutSeconds * 1000;

  receiver.phase('floor warm-up');
  await publishBurst(publisher, events, WARM_UP_EVENTS);
  await receiver.reached(WARM_UP_EVENTS, timeoutMs);

  const count = rate * seconds;
  receiver.phase(`floor ${rate}/s`);
  const cpuBefore = cpuSecondsOf(child.pid!);
  const postgresBefore = postgresCpu();
  await publishPaced(publisher, events, count, rate);
  await receiver.reached(count, timeoutMs);
  const cpuSeconds = cpuSecondsOf(child.pid!) - cpuBefore;
  const postgresSeconds = cpuSecondsSince(postgresBefore, postgresCpu());
  const stats = await receiver.stats();
  await stopped(child);
  await jsm.streams.delete(stream);
  if (kind === 'numbering') {
    await onDatabase(stack.databaseUrl, DROP_NUMBERING_TABLES);
  }
  return {
    eventsPerSecond: rate,
    deliveries: count,
    cpuSecondsPer1000: (cpuSeconds / count) * 1000,
    postgresCpuSecondsPer1000: (postgresSeconds / count) * 1000,
    publishToReceiptMs: { p50: stats.latencyMs.p50, p99: stats.latencyMs.p99 },
  };
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((done, fail) => {
    const exited = (code: number | null) => fail(new Error(`the floor process exited (${code})`));
    child.once('exit', exited);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        child.off('exit', exited);
        done();
      }
    });
  });
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
