import {
  attemptsOf,
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  fold,
  isScheduled,
  RecordedDeliveryEvent,
} from '@svc/deliveries';
import { applyEndpointEvent, ENDPOINT_EVENT_TYPES, EndpointEvent } from '@svc/webhook-endpoints';
import type { Pool } from 'pg';
import type { PublishedEvent } from './event-load';
import type { EngineLife } from './fault-stack';
import { FifoFigures, fifoSummary, judgeFifoOrder } from './fifo-ledger';
import type { ReceivedPost } from './recording-receiver';
import {
  alternatingKinds,
  countsOfKinds,
  judgeSequenceNumbers,
  NumberRecordedWith,
  SequenceFigures,
} from './sequence-ledger';

/**
 * The one checker of every scenario: what was published (the known set), what the receivers
 * recorded (every POST, with what they answered), and what the delivery log in PostgreSQL holds
 * (the events, the projections), compared once the scenario has settled and its engines have
 * stopped. ADR 0031 says why each check is there.
 */

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** A fault the scenario caused: from `at` to `endedAt` (when the thing came back). */
export interface FaultMark {
  kind: string;
  at: number;
  endedAt: number;
  /** The endpoint (by name) the fault concerned, when it was one receiver's. */
  endpoint?: string;
}

export interface Recovery {
  fault: string;
  endpoint?: string;
  durationMs: number;
  /** From the fault's end to the first POST a receiver accepted after it. */
  firstDeliveryAfterMs: number | null;
  /** Pairs published before the fault's end that had not arrived by then. */
  backlogAtEnd: number;
  /** From the fault's end until every one of them had arrived (0 when there were none). */
  backlogDeliveredAfterMs: number | null;
}

export interface LedgerInput {
  published: PublishedEvent[];
  /** Endpoint name → endpoint id. */
  endpointIds: ReadonlyMap<string, string>;
  /** The endpoints (by name) registered with `ordering: "fifo"`. */
  fifoEndpoints: ReadonlySet<string>;
  posts: ReceivedPost[];
  engines: EngineLife[];
  faults: FaultMark[];
  db: Pool;
  /** When the scenario settled (or gave up waiting): the moment "stuck" is judged at. */
  settledAt: number;
  /** An unrecorded POST this long before a kill -9 is no longer explained by it. */
  crashWindowMs: number;
  consumer: { pending: number; ackPending: number } | null;
  deadLetters: number | null;
}

export interface LedgerFigures {
  events: number;
  eventsWithoutSubscriber: number;
  pairs: number;
  pairsArrived: number;
  posts: number;
  postOutcomes: Record<string, number>;
  duplicates: {
    total: number;
    /** The earlier accepted POST was never recorded: its engine was killed before it could. */
    inCrashWindow: number;
    /** The earlier accepted POST was recorded as a failure: its answer never reached the engine. */
    afterLostAnswer: number;
    /** Anything else: the engine sent again what it knew had arrived (must be 0). */
    outsideCrashWindow: number;
  };
  unrecordedPosts: { total: number; inCrashWindow: number; outsideCrashWindow: number };
  /** Oldest unrecorded POST, in ms before the kill that explains it. */
  oldestUnrecordedBeforeKillMs: number | null;
  attempts: {
    inLog: number;
    succeeded: number;
    failed: number;
    concurrent: number;
    /** Failed attempts no receiver saw (refused connections, a receiver that was down). */
    withoutPost: number;
  };
  deliveries: Record<string, number>;
  stuck: number;
  projectionMismatches: {
    deliveries: number;
    attempts: number;
    schedule: number;
    endpoints: number;
  };
  metrics: {
    engine: string;
    succeeded: number;
    failed: number;
    logSucceeded: [number, number];
    logFailed: [number, number];
    exact: boolean;
  }[];
  consumer: { pending: number; ackPending: number } | null;
  deadLetters: number | null;
  recovery: Recovery[];
  /** Per-endpoint sequence numbers (ADR 0045): each endpoint's n and highest numbers, findings. */
  sequences: SequenceFigures;
  /** FIFO endpoints (ADR 0045): their order and one-at-a-time, findings and what a crash excused. */
  fifo: FifoFigures & {
    /** The kills' crash windows, to read the findings against. */
    crashWindows: { engine: string; from: string; killedAt: string; ports: number[] }[];
    /** The first findings of each kind in turn (the check's detail shows five). */
    firstFindings: unknown[];
  };
}

export interface LedgerResult {
  figures: LedgerFigures;
  checks: Check[];
}

interface LoggedAttempt {
  position: string;
  key: string;
  data: DeliveryAttempted;
  attemptedAt: number;
  recordedAt: number;
  matched: boolean;
}

interface EventRow {
  position: string;
  stream_id: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

/** Other engines' lives are stretched by this much when the metrics are matched to the log. */
const KILL_GRACE_MS = 2000;
/** How late a loaded receiver process may read a request its sender sent before dying. */
const LATE_READ_MS = 10_000;
/** An attempt is decided after its answer: its POST arrived before it (same clock, some slack). */
const MATCH_SLACK_MS = 1000;
const STUCK_GRACE_MS = 5000;
const SAMPLE = 5;

const pairKey = (eventId: string, endpoint: string) => `${eventId} ${endpoint}`;
const attemptKey = (deliveryId: string, attempt: number) => `${deliveryId} #${attempt}`;

/** `failingKinds`: the failures counted by kind, when they are of several. */
function check(name: string, failures: unknown[], summary: string, failingKinds?: string): Check {
  return {
    name,
    ok: failures.length === 0,
    detail:
      failures.length === 0
        ? summary
        : `${failures.length} failing${failingKinds ? ` (${failingKinds})` : ''}: ${JSON.stringify(
            failures.slice(0, SAMPLE),
          )}${failures.length > SAMPLE ? ' …' : ''}`,
  };
}

/** A timestamptz as pg reads it: a Date, or Infinity for `infinity` (a FIFO place not yet recorded). */
const timeOf = (value: unknown): number =>
  value instanceof Date ? value.getTime() : typeof value === 'number' ? value : NaN;

/** bigint columns come from pg as strings; the folds and the receivers have numbers. */
const sequenceAsNumber = (row: Record<string, unknown>): Record<string, unknown> =>
  row.sequence === null || row.sequence === undefined
    ? row
    : { ...row, sequence: Number(row.sequence) };

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) {
      group.push(item);
    } else {
      groups.set(k, [item]);
    }
  }
  return groups;
}

/** A value of a projection row or of a fold, in one comparable form. */
function comparable(value: unknown): unknown {
  if (value === undefined || value === null) {
    return null;
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) {
    return new Date(value).toISOString();
  }
  if (Array.isArray(value) || typeof value === 'object') {
    return JSON.stringify(value);
  }
  return value;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The fields of a folded state (camelCase) that differ from its projection row (snake_case). */
function differences(state: object, row: Record<string, unknown>): string[] {
  return Object.entries(state).flatMap(([key, value]) => {
    const column = snake(key);
    return comparable(value) === comparable(row[column])
      ? []
      : [`${column}: fold ${String(comparable(value))} row ${String(comparable(row[column]))}`];
  });
}

/**
 * The FIFO check: its findings as `check` shows failures, followed by the kills' crash windows
 * (the findings' times and ports are to be read against them).
 */
function fifoCheck(
  findings: unknown[],
  figures: FifoFigures,
  crashWindows: LedgerFigures['fifo']['crashWindows'],
): Check {
  const judged = check(
    'FIFO endpoints: one POST at a time, first accepted in sequence order (crash windows apart)',
    findings,
    fifoSummary(figures),
    countsOfKinds(figures.findings),
  );
  return judged.ok
    ? judged
    : { ...judged, detail: `${judged.detail}; crash windows: ${JSON.stringify(crashWindows)}` };
}

export async function runLedger(input: LedgerInput): Promise<LedgerResult> {
  const { db, published, posts } = input;
  const endpointById = new Map([...input.endpointIds].map(([name, id]) => [id, name]));
  const expectedPairs = new Set(
    published.flatMap((event) =>
      event.endpoints.map((endpoint) => pairKey(event.envelope.id, endpoint)),
    ),
  );

  const deliveryEventRows = (
    await db.query<EventRow>(
      `SELECT position::text, stream_id, version, type, data, metadata, recorded_at FROM events
        WHERE type = ANY($1) ORDER BY stream_id, version`,
      [Object.values(DELIVERY_EVENT_TYPES)],
    )
  ).rows;
  const endpointEventRows = (
    await db.query<EventRow>(
      `SELECT position::text, stream_id, version, type, data, metadata, recorded_at FROM events
        WHERE type = ANY($1) ORDER BY stream_id, version`,
      [Object.values(ENDPOINT_EVENT_TYPES)],
    )
  ).rows;
  const deliveryRows = (
    await db.query<Record<string, unknown>>('SELECT * FROM deliveries')
  ).rows.map(sequenceAsNumber);
  const attemptRows = (
    await db.query<Record<string, unknown>>('SELECT * FROM delivery_attempts')
  ).rows.map(sequenceAsNumber);
  const claimRows = (
    await db.query<{ event_id: string; endpoint_id: string; sequence: string }>(
      'SELECT event_id, endpoint_id, sequence::text FROM delivery_numbers',
    )
  ).rows;
  const counterRows = (
    await db.query<{ endpoint_id: string; last: string }>(
      'SELECT endpoint_id, last::text FROM endpoint_sequences',
    )
  ).rows;
  const scheduleRows = (await db.query<Record<string, unknown>>('SELECT * FROM delivery_schedule'))
    .rows;
  const endpointRows = (await db.query<Record<string, unknown>>('SELECT * FROM webhook_endpoints'))
    .rows;

  // --- the attempts in the log, keyed as the receivers saw them (X-SVC-Delivery-Id, attempt).
  // A raced attempt is recorded under the delivery that won, naming the one it was sent under.
  const logged: LoggedAttempt[] = deliveryEventRows
    .filter((row) => row.type === DELIVERY_EVENT_TYPES.attempted)
    .map((row) => {
      const data = row.data as unknown as DeliveryAttempted;
      return {
        position: row.position,
        key: attemptKey(data.concurrent_with ?? data.delivery_id, data.attempt),
        data,
        attemptedAt: Date.parse(data.attempted_at),
        recordedAt: row.recorded_at.getTime(),
        matched: false,
      };
    });

  // --- every POST matched with its attempt: per key, each attempt takes the latest POST that
  // arrived before it was decided; POSTs left over were never recorded.
  const matchOf = new Map<ReceivedPost, LoggedAttempt>();
  const postsByKey = groupBy(posts, (post) => attemptKey(post.deliveryId, post.attempt));
  for (const [key, attempts] of groupBy(logged, (attempt) => attempt.key)) {
    const candidates = [...(postsByKey.get(key) ?? [])].sort((a, b) => a.receivedAt - b.receivedAt);
    for (const attempt of [...attempts].sort((a, b) => a.attemptedAt - b.attemptedAt)) {
      for (let i = candidates.length - 1; i >= 0; i -= 1) {
        const post = candidates[i];
        if (!matchOf.has(post) && post.receivedAt <= attempt.attemptedAt + MATCH_SLACK_MS) {
          matchOf.set(post, attempt);
          attempt.matched = true;
          break;
        }
      }
    }
  }

  /** Which engines lived at a moment, and the delivery's stream as the log holds it: for a person. */
  const enginesAt = (at: number) =>
    input.engines
      .filter((life) => life.startedAt <= at && (life.endedAt ?? Infinity) >= at)
      .map((life) => `${life.name} (${life.ending})`);
  const streamOf = (deliveryId: string) =>
    deliveryEventRows
      .filter((row) => row.stream_id === deliveryId)
      .map((row) => ({
        version: row.version,
        type: row.type,
        attempt: row.data.attempt,
        succeeded: row.data.succeeded,
        concurrentWith: row.data.concurrent_with,
        at: row.data.attempted_at ?? row.data.due_at,
        recordedAt: row.recorded_at.toISOString(),
      }));
  const kills = input.engines.filter((life) => life.ending === 'killed' && life.endedAt !== null);
  /**
   * The kill that explains an unrecorded POST, if one does: the POST came on a connection the
   * killed engine held when it was killed (its ports were read from /proc just before), and
   * arrived shortly before the kill (or after it, by the receivers' clock, when their event loop
   * was late to read it).
   */
  const crashFor = (post: ReceivedPost) =>
    kills.find(
      (life) =>
        life.portsAtKill.has(post.senderPort) &&
        post.receivedAt >= Math.max(life.startedAt, life.endedAt! - input.crashWindowMs) &&
        post.receivedAt <= life.endedAt! + LATE_READ_MS,
    );
  const unrecorded = posts.filter((post) => !matchOf.has(post));
  const unrecordedInCrash = unrecorded.filter((post) => crashFor(post));
  const unrecordedOutside = unrecorded.filter((post) => !crashFor(post));
  const oldestBeforeKill = unrecordedInCrash.reduce<number | null>((oldest, post) => {
    const age = crashFor(post)!.endedAt! - post.receivedAt;
    return oldest === null || age > oldest ? age : oldest;
  }, null);

  // --- duplicates: a pair accepted more than once, classified by what became of the previous.
  const accepted = posts.filter((post) => post.outcome === 'accepted');
  const acceptedByPair = groupBy(accepted, (post) => pairKey(post.eventId, post.endpoint));
  const duplicates = { total: 0, inCrashWindow: 0, afterLostAnswer: 0, outsideCrashWindow: 0 };
  const outsideDuplicates: unknown[] = [];
  for (const [pair, pairPosts] of acceptedByPair) {
    const ordered = [...pairPosts].sort((a, b) => a.receivedAt - b.receivedAt);
    for (let i = 1; i < ordered.length; i += 1) {
      duplicates.total += 1;
      const previous = ordered[i - 1];
      const previousAttempt = matchOf.get(previous);
      if (!previousAttempt && crashFor(previous)) {
        duplicates.inCrashWindow += 1;
      } else if (previousAttempt && !previousAttempt.data.succeeded) {
        duplicates.afterLostAnswer += 1;
      } else {
        duplicates.outsideCrashWindow += 1;
        outsideDuplicates.push({
          pair,
          previous: {
            attempt: previous.attempt,
            at: previous.receivedAt,
            port: previous.senderPort,
          },
          again: {
            attempt: ordered[i].attempt,
            at: ordered[i].receivedAt,
            port: ordered[i].senderPort,
            concurrent: matchOf.get(ordered[i])?.data.concurrent_with !== undefined,
          },
          engines: enginesAt(previous.receivedAt),
          log: streamOf(previous.deliveryId),
        });
      }
    }
  }

  // --- what arrived against what was due.
  const arrivedPairs = new Set(accepted.map((post) => pairKey(post.eventId, post.endpoint)));
  const missing = [...expectedPairs].filter((pair) => !arrivedPairs.has(pair));
  const notDue = posts
    .filter((post) => !expectedPairs.has(pairKey(post.eventId, post.endpoint)))
    .map((post) => ({ event: post.eventId, endpoint: post.endpoint }));
  const forged = posts
    .filter((post) => !post.signatureValid || !post.headersMatchBody)
    .map((post) => ({ event: post.eventId, endpoint: post.endpoint, attempt: post.attempt }));
  const stillOpen = posts.filter((post) => post.outcome === 'unanswered');

  // --- successes in the log the receivers did not accept (or never saw).
  const postOf = new Map([...matchOf].map(([post, attempt]) => [attempt, post]));
  const phantom = logged
    .filter((attempt) => attempt.data.succeeded && postOf.get(attempt)?.outcome !== 'accepted')
    .map((attempt) => ({ delivery: attempt.data.delivery_id, attempt: attempt.data.attempt }));

  // --- the deliveries of the known set, one per pair, all succeeded.
  const deliveriesByPair = groupBy(deliveryRows, (row) =>
    pairKey(String(row.event_id), endpointById.get(String(row.endpoint_id)) ?? '?'),
  );
  const deliveryProblems: unknown[] = [];
  for (const pair of expectedPairs) {
    const rows = deliveriesByPair.get(pair) ?? [];
    if (rows.length !== 1 || rows[0].status !== 'succeeded') {
      deliveryProblems.push({ pair, rows: rows.map((row) => row.status) });
    }
  }
  for (const [pair, rows] of deliveriesByPair) {
    // Deliveries of the service's own operational events (webhook.*) are not the scenario's.
    const operational = rows.every((row) => String(row.event_type).startsWith('webhook.'));
    if (!expectedPairs.has(pair) && !operational) {
      deliveryProblems.push({ unexpected: pair });
    }
  }
  const statusCounts: Record<string, number> = {};
  for (const row of deliveryRows) {
    statusCounts[String(row.status)] = (statusCounts[String(row.status)] ?? 0) + 1;
  }

  // --- nothing stuck once settled: no pending delivery past its time (or without one), no
  // schedule row past due, no FIFO place whose delivery was never recorded (due at infinity, it
  // holds its queue for good once the engines have stopped), no message left in the consumer.
  const stuckBefore = input.settledAt - STUCK_GRACE_MS;
  const stuck = [
    ...deliveryRows
      .filter(
        (row) =>
          row.status === 'pending' &&
          (row.next_attempt_at === null || timeOf(row.next_attempt_at) < stuckBefore),
      )
      .map((row) => ({ delivery: row.id, next: row.next_attempt_at })),
    ...scheduleRows
      .filter((row) => timeOf(row.due_at) < stuckBefore || timeOf(row.due_at) === Infinity)
      .map((row) => ({
        scheduled: row.delivery_id,
        due: row.due_at === Infinity ? 'infinity (a FIFO place never recorded)' : row.due_at,
      })),
    ...(input.consumer === null
      ? [{ consumer: 'unreadable' }]
      : input.consumer.pending + input.consumer.ackPending > 0
        ? [{ consumer: input.consumer }]
        : []),
  ];

  // --- projections against a fold of the log with the pure functions the projections use.
  const mismatches = {
    deliveries: [] as unknown[],
    attempts: [] as unknown[],
    schedule: [] as unknown[],
    endpoints: [] as unknown[],
  };
  const recorded: RecordedDeliveryEvent[] = deliveryEventRows.map(
    (row) =>
      ({
        type: row.type,
        data: row.data,
        metadata: row.metadata,
        position: row.position,
        streamId: row.stream_id,
        version: row.version,
        recordedAt: row.recorded_at,
      }) as unknown as RecordedDeliveryEvent,
  );
  const deliveryRowById = new Map(deliveryRows.map((row) => [String(row.id), row]));
  const folded = new Map<string, ReturnType<typeof fold>>();
  for (const [streamId, events] of groupBy(recorded, (event) => event.streamId)) {
    const state = fold(null, events);
    folded.set(streamId, state);
    const row = deliveryRowById.get(streamId);
    if (!state) {
      continue;
    }
    if (!row) {
      mismatches.deliveries.push({ delivery: streamId, row: 'missing' });
      continue;
    }
    const diff = differences(state, row);
    if (diff.length > 0) {
      mismatches.deliveries.push({ delivery: streamId, diff });
    }
  }
  for (const row of deliveryRows) {
    if (!folded.get(String(row.id))) {
      mismatches.deliveries.push({ delivery: row.id, row: 'not backed by the log' });
    }
  }
  const attemptRowByPosition = new Map(attemptRows.map((row) => [String(row.position), row]));
  const foldedAttempts = attemptsOf(recorded);
  for (const { position, data } of foldedAttempts) {
    const row = attemptRowByPosition.get(position);
    if (!row) {
      mismatches.attempts.push({ position, row: 'missing' });
      continue;
    }
    const diff = Object.keys(row)
      .filter((column) => column !== 'position' && column !== 'retention_key')
      .filter(
        (column) =>
          comparable(row[column]) !==
          comparable((data as unknown as Record<string, unknown>)[column]),
      );
    if (diff.length > 0) {
      mismatches.attempts.push({ position, columns: diff });
    }
  }
  if (attemptRows.length !== foldedAttempts.length) {
    mismatches.attempts.push({ rows: attemptRows.length, inLog: foldedAttempts.length });
  }
  const scheduleById = new Map(scheduleRows.map((row) => [String(row.delivery_id), row]));
  for (const [id, state] of folded) {
    const row = scheduleById.get(id);
    if (state && isScheduled(state)) {
      if (!row || comparable(row.due_at) !== comparable(state.nextAttemptAt)) {
        mismatches.schedule.push({ delivery: id, due: state.nextAttemptAt, row: row?.due_at });
      }
    } else if (row) {
      mismatches.schedule.push({ delivery: id, row: 'not pending in the log' });
    }
  }
  const endpointRowById = new Map(endpointRows.map((row) => [String(row.id), row]));
  for (const [streamId, events] of groupBy(endpointEventRows, (row) => row.stream_id)) {
    const state = events.reduce<ReturnType<typeof applyEndpointEvent>>(
      (current, row) =>
        applyEndpointEvent(
          current,
          { type: row.type, data: row.data } as unknown as EndpointEvent,
          row.version,
        ),
      null,
    );
    const row = endpointRowById.get(streamId);
    if (!state) {
      if (row) {
        mismatches.endpoints.push({ endpoint: streamId, row: 'deleted in the log' });
      }
      continue;
    }
    const diff = row ? differences(state, row) : ['row missing'];
    if (diff.length > 0) {
      mismatches.endpoints.push({ endpoint: streamId, diff });
    }
  }

  // --- sequence numbers (ADR 0045): per endpoint 1..n, one per event, the same on every attempt,
  // as the receivers saw them and as the log holds them.
  const endpointName = (id: string) => endpointById.get(id) ?? `unknown endpoint ${id}`;
  const dueEvents = new Map<string, string[]>(
    [...input.endpointIds.keys()].map((name) => [name, []]),
  );
  for (const event of published) {
    for (const endpoint of event.endpoints) {
      dueEvents.set(endpoint, dueEvents.get(endpoint) ?? []);
      dueEvents.get(endpoint)!.push(event.envelope.id);
    }
  }
  /** The events that can start a stream carry its identity, and so its number. */
  const numberedTypes: string[] = [
    DELIVERY_EVENT_TYPES.attempted,
    DELIVERY_EVENT_TYPES.deferred,
    DELIVERY_EVENT_TYPES.scheduled,
  ];
  const recordedWith: NumberRecordedWith[] = [
    ...deliveryEventRows
      .filter((row) => numberedTypes.includes(row.type))
      .map((row) => ({
        deliveryId: row.stream_id,
        where: `${row.type} v${row.version}`,
        sequence: (row.data.sequence ?? null) as number | null,
      })),
    ...attemptRows.map((row) => ({
      deliveryId: String(row.delivery_id),
      where: `delivery_attempts #${String(row.attempt)}`,
      sequence: (row.sequence ?? null) as number | null,
    })),
  ];
  const sequences = judgeSequenceNumbers({
    due: dueEvents,
    posts,
    deliveries: deliveryRows.map((row) => ({
      deliveryId: String(row.id),
      eventId: String(row.event_id),
      endpoint: endpointName(String(row.endpoint_id)),
      sequence: (row.sequence ?? null) as number | null,
    })),
    recordedWith,
    claims: claimRows.map((row) => ({
      eventId: row.event_id,
      endpoint: endpointName(row.endpoint_id),
      sequence: Number(row.sequence),
    })),
    counters: new Map(counterRows.map((row) => [endpointName(row.endpoint_id), Number(row.last)])),
  });

  // --- FIFO endpoints (ADR 0045): at the receiver, in arrival order, one POST at a time and
  // first acceptances in sequence order; a kill -9's crash window excuses what it explains.
  /** The engines whose connections to the receivers used the POST's port, as far as seen. */
  const senderOf = (post: ReceivedPost) => {
    const senders = input.engines.filter(
      (life) =>
        life.portsSeen.has(post.senderPort) &&
        life.startedAt <= post.receivedAt &&
        (life.endedAt ?? Infinity) + LATE_READ_MS >= post.receivedAt,
    );
    return senders.length > 0
      ? senders.map((life) => life.name).join(' or ')
      : `not seen (running: ${enginesAt(post.receivedAt).join(', ')})`;
  };
  const endpointRowByName = new Map(
    endpointRows.map((row) => [endpointName(String(row.id)), row] as const),
  );
  const fifo = judgeFifoOrder({
    endpoints: new Map(
      [...input.fifoEndpoints].map((name) => [
        name,
        {
          ordering: (endpointRowByName.get(name)?.ordering as string | undefined) ?? null,
          givenUp: new Set(
            deliveryRows
              .filter(
                (row) =>
                  endpointName(String(row.endpoint_id)) === name &&
                  (row.status === 'abandoned' || row.status === 'cancelled') &&
                  row.sequence !== null,
              )
              .map((row) => row.sequence as number),
          ),
        },
      ]),
    ),
    posts: posts
      .filter((post) => input.fifoEndpoints.has(post.endpoint))
      .map((post) => ({
        ...post,
        cutOffByKill: !matchOf.has(post) && crashFor(post) !== undefined,
        sender: senderOf(post),
      })),
  });
  const iso = (at: number) => new Date(at).toISOString();
  const crashWindows = kills.map((life) => ({
    engine: life.name,
    from: iso(Math.max(life.startedAt, life.endedAt! - input.crashWindowMs)),
    killedAt: iso(life.endedAt!),
    ports: [...life.portsAtKill],
  }));
  const fifoFindings = alternatingKinds(fifo.findings);

  // --- metrics: each engine scraped once settled, against the attempts recorded in its life.
  const metrics = input.engines
    .filter((life) => life.counters !== null)
    .map((life) => {
      const until = life.counters!.scrapedAt;
      const others = input.engines.filter((other) => other !== life);
      const overlapsOther = (at: number) =>
        others.some(
          (other) =>
            at >= other.startedAt &&
            at <= (other.endedAt ?? other.counters?.scrapedAt ?? Infinity) + KILL_GRACE_MS,
        );
      const inLife = logged.filter((a) => a.recordedAt >= life.startedAt && a.recordedAt <= until);
      const range = (succeeded: boolean): [number, number] => {
        const mine = inLife.filter((a) => a.data.succeeded === succeeded);
        return [mine.filter((a) => !overlapsOther(a.recordedAt)).length, mine.length];
      };
      const logSucceeded = range(true);
      const logFailed = range(false);
      return {
        engine: life.name,
        succeeded: life.counters!.attemptsSucceeded,
        failed: life.counters!.attemptsFailed,
        logSucceeded,
        logFailed,
        exact: logSucceeded[0] === logSucceeded[1] && logFailed[0] === logFailed[1],
      };
    });
  const metricsDisagree = metrics.filter(
    (m) =>
      m.succeeded < m.logSucceeded[0] ||
      m.succeeded > m.logSucceeded[1] ||
      m.failed < m.logFailed[0] ||
      m.failed > m.logFailed[1],
  );

  const unclean = input.engines
    .filter((life) => life.ending === 'terminated' && life.exit?.code !== 0)
    .map((life) => ({ engine: life.name, exit: life.exit }));

  // --- time to recover from each fault, as the receivers saw it.
  const firstArrival = new Map<string, number>();
  for (const post of accepted) {
    const key = pairKey(post.eventId, post.endpoint);
    firstArrival.set(key, Math.min(firstArrival.get(key) ?? Infinity, post.receivedAt));
  }
  const pairs = published.flatMap((event) =>
    event.endpoints.map((endpoint) => ({
      key: pairKey(event.envelope.id, endpoint),
      endpoint,
      publishedAt: event.publishedAt,
    })),
  );
  const recovery: Recovery[] = input.faults.map((fault) => {
    const concerned = (endpoint: string) =>
      fault.endpoint === undefined || endpoint === fault.endpoint;
    const next = accepted
      .filter((post) => post.receivedAt >= fault.endedAt && concerned(post.endpoint))
      .reduce((first, post) => Math.min(first, post.receivedAt), Infinity);
    const backlog = pairs.filter(
      (pair) =>
        concerned(pair.endpoint) &&
        pair.publishedAt < fault.endedAt &&
        (firstArrival.get(pair.key) ?? Infinity) >= fault.endedAt,
    );
    const lastOfBacklog = backlog.reduce(
      (last, pair) => Math.max(last, firstArrival.get(pair.key) ?? Infinity),
      fault.endedAt,
    );
    return {
      fault: fault.kind,
      ...(fault.endpoint === undefined ? {} : { endpoint: fault.endpoint }),
      durationMs: fault.endedAt - fault.at,
      firstDeliveryAfterMs: Number.isFinite(next) ? next - fault.endedAt : null,
      backlogAtEnd: backlog.length,
      backlogDeliveredAfterMs: Number.isFinite(lastOfBacklog)
        ? lastOfBacklog - fault.endedAt
        : null,
    };
  });

  const postOutcomes: Record<string, number> = {};
  for (const post of posts) {
    postOutcomes[post.outcome] = (postOutcomes[post.outcome] ?? 0) + 1;
  }
  const figures: LedgerFigures = {
    events: published.length,
    eventsWithoutSubscriber: published.filter((event) => event.endpoints.length === 0).length,
    pairs: expectedPairs.size,
    pairsArrived: expectedPairs.size - missing.length,
    posts: posts.length,
    postOutcomes,
    duplicates,
    unrecordedPosts: {
      total: unrecorded.length,
      inCrashWindow: unrecordedInCrash.length,
      outsideCrashWindow: unrecordedOutside.length,
    },
    oldestUnrecordedBeforeKillMs: oldestBeforeKill,
    attempts: {
      inLog: logged.length,
      succeeded: logged.filter((a) => a.data.succeeded).length,
      failed: logged.filter((a) => !a.data.succeeded).length,
      concurrent: logged.filter((a) => a.data.concurrent_with !== undefined).length,
      withoutPost: logged.filter((a) => !a.matched).length,
    },
    deliveries: statusCounts,
    stuck: stuck.length,
    projectionMismatches: {
      deliveries: mismatches.deliveries.length,
      attempts: mismatches.attempts.length,
      schedule: mismatches.schedule.length,
      endpoints: mismatches.endpoints.length,
    },
    metrics,
    consumer: input.consumer,
    deadLetters: input.deadLetters,
    recovery,
    sequences: sequences.figures,
    fifo: { ...fifo.figures, crashWindows, firstFindings: fifoFindings.slice(0, 20) },
  };

  /** `acme-alerts 1..120, …`: each endpoint's numbers, as far as one side goes. */
  const sequenceSummary = (
    highest: (figures: SequenceFigures['endpoints'][string]) => number | null,
  ) =>
    Object.entries(sequences.figures.endpoints)
      .map(([endpoint, figures]) => `${endpoint} 1..${highest(figures) ?? 0}`)
      .join(', ');
  const checks: Check[] = [
    check(
      'every (event, subscribed endpoint) pair arrived',
      missing,
      `${expectedPairs.size} pairs of ${published.length} events, all accepted by their receiver`,
    ),
    check(
      'nothing sent that was not due (tenant and subscription)',
      notDue,
      `${posts.length} POSTs, each of a known event to an endpoint subscribed to it`,
    ),
    check(
      'every POST signed with its endpoint secret, headers naming its event',
      forged,
      'X-SVC-Signature-256 and webhook-signature verified on every POST',
    ),
    check(
      'no duplicate outside a crash window',
      outsideDuplicates,
      `${duplicates.total} duplicates: ${duplicates.inCrashWindow} in a crash window, ${duplicates.afterLostAnswer} after an answer that did not arrive`,
    ),
    check(
      'every POST has its attempt in the log (but those a kill -9 cut off)',
      [
        ...unrecordedOutside.map((post) => {
          // The kill nearest to the POST, for a person judging whether it should explain it.
          const nearest = kills.reduce<EngineLife | undefined>(
            (best, life) =>
              !best ||
              Math.abs(life.endedAt! - post.receivedAt) < Math.abs(best.endedAt! - post.receivedAt)
                ? life
                : best,
            undefined,
          );
          return {
            unrecorded: `${post.deliveryId} #${post.attempt}`,
            endpoint: post.endpoint,
            outcome: post.outcome,
            engines: enginesAt(post.receivedAt),
            log: streamOf(post.deliveryId),
            ...(nearest
              ? {
                  msBeforeKill: nearest.endedAt! - post.receivedAt,
                  onKilledEnginesConnection: nearest.portsAtKill.has(post.senderPort),
                }
              : { at: post.receivedAt }),
          };
        }),
        ...stillOpen.map((post) => ({ unanswered: `${post.deliveryId} #${post.attempt}` })),
      ],
      `${posts.length - unrecorded.length} of ${posts.length} POSTs matched; ${unrecordedInCrash.length} unrecorded, all in a crash window`,
    ),
    check(
      'every success in the log was accepted by its receiver',
      phantom,
      `${figures.attempts.succeeded} successes recorded, each an accepted POST`,
    ),
    check(
      'one delivery per pair, succeeded; none other',
      deliveryProblems,
      `${deliveryRows.length} deliveries: ${JSON.stringify(statusCounts)}`,
    ),
    check(
      'per endpoint the receivers saw 1..n, one number per event, the same on every attempt',
      alternatingKinds(sequences.receiverFindings),
      `${dueEvents.size} endpoints: ${sequenceSummary((e) => e.highestAccepted)}`,
      countsOfKinds(sequences.figures.receivers),
    ),
    check(
      'the log numbers every pair as its receiver saw it (deliveries, events, attempts, claims, counters)',
      alternatingKinds(sequences.logFindings),
      `deliveries numbered ${sequenceSummary((e) => e.highestLogged)}, each as its receiver saw it; every claim its delivery's, every counter at n`,
      countsOfKinds(sequences.figures.log),
    ),
    fifoCheck(fifoFindings, fifo.figures, crashWindows),
    check('no delivery stuck', stuck, 'nothing pending or scheduled, consumer empty'),
    check(
      'projections equal a fold of the log',
      [
        ...mismatches.deliveries,
        ...mismatches.attempts,
        ...mismatches.schedule,
        ...mismatches.endpoints,
      ],
      `${deliveryRows.length} deliveries, ${attemptRows.length} attempts, ${scheduleRows.length} scheduled, ${endpointRows.length} endpoints as folded`,
    ),
    check(
      'metrics agree with the log',
      metricsDisagree,
      metrics
        .map(
          (m) =>
            `${m.engine}: ${m.succeeded}+${m.failed} attempts counted, ${m.exact ? 'as' : 'within what'} the log recorded in its life`,
        )
        .join('; ') || 'no engine scraped',
    ),
    check(
      'no dead letters',
      input.deadLetters === 0 ? [] : [{ deadLetters: input.deadLetters }],
      'dead-letter stream empty',
    ),
    check('graceful stops exit 0', unclean, 'every SIGTERM ended with exit code 0'),
  ];
  return { figures, checks };
}
