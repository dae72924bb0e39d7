import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_ENGINE_ENV, EngineLife, FaultStack, FaultStackOptions } from './fault-stack';
import { Check, FaultMark, LedgerFigures, runLedger } from './ledger';
import { commit, machine, RUN_VARIABLE, ScenarioResult, writeResult } from './results';
import { APPS_ROOT, FAULT_SETTINGS, REPO_ROOT } from './settings';
import { FIFO_ENDPOINTS } from './topology';

export interface ScenarioContext {
  stack: FaultStack;
  /**
   * Notes a fault from `at` until `endedAt` (when what failed came back; now by default), of one
   * endpoint's receiver or of everything.
   */
  fault(kind: string, at: number, endedAt?: number, endpoint?: string): FaultMark;
  /** Figures of the scenario's own, added to the result. */
  figures: Record<string, unknown>;
  /** A check of the scenario's own, judged with the ledger's. */
  check(name: string, ok: boolean, detail: string): void;
  log(message: string): void;
}

export interface ScenarioDefinition {
  name: string;
  description: string;
  /** What the scenario was run with (besides the engine's environment), for the result. */
  settings: Record<string, unknown>;
  /** Engine variables of this scenario, over the suite's defaults. */
  engineEnv?: NodeJS.ProcessEnv;
  rssSampleEveryMs?: number;
  /** The NATS the scenario runs on (a cluster, say); one private nats-server when absent. */
  startNats?: FaultStackOptions['startNats'];
  /** An unrecorded POST this long before a kill -9 is no longer explained by it. */
  crashWindowMs?: number;
  /** The PostgreSQL it runs on, when not one private cluster (a primary and a standby, say). */
  startPostgres?: FaultStackOptions['startPostgres'];
  /** How long it may take to settle, when not `FAULTS_SETTLE_TIMEOUT`. */
  settleTimeoutMs?: number;
  /**
   * Checks (by name, the ledger's included) that are reported with their findings in
   * `figures.notAsserted` but not judged: what the scenario shows a configuration loses
   * (asynchronous replication), rather than what the service promises.
   */
  notAsserted?: readonly string[];
  /** Starts the engines, publishes the events and causes the faults. */
  run(context: ScenarioContext): Promise<void>;
  /** Checks and figures of the scenario's own, once it has settled and its engines stopped. */
  verify?(context: ScenarioContext, ledger: LedgerFigures): void | Promise<void>;
}

const progress = (scenario: string, started: number, message: string) =>
  process.stderr.write(
    `[faults ${scenario} ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`,
  );

/**
 * Waits until the scenario has settled: every pair accepted by its receiver, no POST still being
 * answered, nothing pending in PostgreSQL, nothing left in the consumer. Returns false when it
 * did not within the settle timeout (the ledger then says what is missing). A FIFO endpoint's
 * queue is drained then too: each of its deliveries takes its place in `delivery_schedule` when
 * it is numbered (due at infinity until recorded) and leaves it only once it has succeeded or
 * been given up (ADR 0045), so no schedule row means no FIFO delivery waiting.
 */
async function settle(stack: FaultStack, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const due = stack.load.pairs();
  while (Date.now() < deadline) {
    const posts = [...stack.receivers.values()].flatMap((receiver) => receiver.posts);
    const arrived = new Set(
      posts
        .filter((post) => post.outcome === 'accepted')
        .map((post) => `${post.eventId} ${post.endpoint}`),
    );
    const receiversDone =
      due.every((pair) => arrived.has(`${pair.eventId} ${pair.endpoint}`)) &&
      posts.every((post) => post.outcome !== 'unanswered');
    if (receiversDone) {
      const open = await stack.db
        .query<{ n: number }>(
          `SELECT (SELECT count(*) FROM deliveries WHERE status = 'pending')::int
                + (SELECT count(*) FROM delivery_schedule)::int AS n`,
        )
        .then((result) => result.rows[0].n)
        .catch(() => null);
      const backlog = await stack.consumerBacklog();
      if (open === 0 && backlog && backlog.pending + backlog.ackPending === 0) {
        return true;
      }
    }
    await sleep(250);
  }
  return false;
}

/** Least-squares slope of RSS over time, in MiB per minute. */
export function rssSlopePerMinute(samples: { at: number; rssMiB: number }[]): number {
  if (samples.length < 2) {
    return NaN;
  }
  const xs = samples.map((s) => s.at / 60_000);
  const ys = samples.map((s) => s.rssMiB);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const num = xs.reduce((acc, x, i) => acc + (x - mx) * (ys[i] - my), 0);
  const den = xs.reduce((acc, x) => acc + (x - mx) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

const round = (value: number, digits = 1) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;

function lifeFigures(life: EngineLife, origin: number) {
  const rss = life.rss
    .filter((s) => life.readyAt !== null && s.at >= life.readyAt)
    .map((s) => s.rssMiB);
  return {
    engine: life.name,
    startedAtS: round((life.startedAt - origin) / 1000),
    readyAtS: life.readyAt === null ? null : round((life.readyAt - origin) / 1000),
    endedAtS: life.endedAt === null ? null : round((life.endedAt - origin) / 1000),
    ending: life.ending,
    exit: life.exit,
    /** From its first sample once ready to its last, and the process's peak (VmHWM). */
    rssMiB: rss.length
      ? { ready: round(rss[0]), end: round(rss[rss.length - 1]), peak: round(life.peakRssMiB) }
      : null,
    cpuSeconds: round(life.cpuSeconds),
  };
}

/**
 * One scenario from start to verdict: its own stack, its run, the wait to settle, the engines
 * scraped and stopped gracefully, the ledger, and the result written to the results folder.
 * The stack is removed whatever happens; the processes' logs stay in the results folder.
 */
export async function runScenario(definition: ScenarioDefinition): Promise<ScenarioResult> {
  const started = Date.now();
  const log = (message: string) => progress(definition.name, started, message);
  const faults: FaultMark[] = [];
  const figures: Record<string, unknown> = {};
  const ownChecks: Check[] = [];
  log('starting a PostgreSQL cluster and a nats-server of its own');
  const stack = await FaultStack.start({
    scenario: definition.name,
    engineEnv: definition.engineEnv,
    rssSampleEveryMs: definition.rssSampleEveryMs,
    log,
    startPostgres: definition.startPostgres,
    startNats: definition.startNats,
  });
  try {
    log(`ready (postgres :${stack.postgres.port}, nats :${stack.natsServer.port}); running`);
    const context: ScenarioContext = {
      stack,
      figures,
      log,
      check: (name, ok, detail) => ownChecks.push({ name, ok, detail }),
      fault(kind, at, endedAt = Date.now(), endpoint) {
        const mark = { kind, at, endedAt, ...(endpoint === undefined ? {} : { endpoint }) };
        faults.push(mark);
        return mark;
      },
    };
    await definition.run(context);
    log(`published ${stack.load.published.length} events; settling`);
    const settleTimeoutMs = definition.settleTimeoutMs ?? FAULT_SETTINGS.settleTimeoutMs;
    const settled = await settle(stack, settleTimeoutMs);
    const settledAt = Date.now();
    log(settled ? 'settled; stopping the engines' : 'did NOT settle; judging it as it is');
    for (const life of stack.runningEngines()) {
      await life.scrapeCounters().catch(() => undefined);
      await life.terminate();
    }
    const ledger = await runLedger({
      published: stack.load.published,
      endpointIds: stack.endpointIds,
      fifoEndpoints: FIFO_ENDPOINTS,
      posts: [...stack.receivers.values()].flatMap((receiver) => receiver.posts),
      engines: stack.engines,
      faults,
      db: stack.db,
      settledAt,
      crashWindowMs: definition.crashWindowMs ?? 20_000,
      consumer: await stack.consumerBacklog(),
      deadLetters: await stack.deadLetters(),
    });
    await definition.verify?.(context, ledger.figures);
    const result: ScenarioResult = {
      scenario: definition.name,
      description: definition.description,
      run: process.env[RUN_VARIABLE] ?? 'single',
      date: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      machine: machine(),
      commit: commit(),
      settings: {
        ...definition.settings,
        ...(APPS_ROOT === REPO_ROOT ? {} : { appsRoot: APPS_ROOT }),
        engine: { ...DEFAULT_ENGINE_ENV, ...definition.engineEnv },
      },
      figures: {
        ...ledger.figures,
        settled,
        settleMs: settledAt - started,
        engines: stack.engines.map((life) => lifeFigures(life, started)),
        faults: faults.map((f) => ({
          kind: f.kind,
          atS: round((f.at - started) / 1000),
          durationMs: f.endedAt - f.at,
        })),
        ...figures,
      },
      checks: [
        {
          name: 'settled',
          ok: settled,
          detail: settled
            ? `every pair arrived and nothing was left pending ${((settledAt - started) / 1000).toFixed(1)} s after the start`
            : `not settled within ${settleTimeoutMs / 1000} s of the run's end`,
        },
        ...ledger.checks,
        ...ownChecks,
      ],
      passed: false,
    };
    const notAsserted = new Set(definition.notAsserted ?? []);
    if (notAsserted.size > 0) {
      result.figures.notAsserted = result.checks.filter((c) => notAsserted.has(c.name));
      result.checks = result.checks.filter((c) => !notAsserted.has(c.name));
    }
    result.passed = result.checks.every((c) => c.ok);
    const file = writeResult(result);
    log(`${result.passed ? 'passed' : 'FAILED'}: ${file}`);
    return result;
  } finally {
    await stack.close();
  }
}

/** The failing checks, for an assertion whose message says what failed. */
export function failedChecks(result: ScenarioResult): string[] {
  return result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
}
