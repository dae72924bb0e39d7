import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresPair, ReplicationState, startPostgresPair } from './postgres-pair';
import { AnswerPlan, ReceivedPost } from './recording-receiver';
import ms from 'ms';
import { ScenarioDefinition } from './scenario';
import { RESULTS_DIR } from './settings';
import { FIFO_ENDPOINTS } from './topology';

export type ReplicationMode = 'synchronous' | 'asynchronous';

const EVENTS = 360;
const PER_SECOND = 20;
/** The failover begins once this share of the events is published; publishing goes on. */
const FAILOVER_AT = 0.3;
/**
 * How long the standby is held behind before the primary is lost (its replication link paused):
 * on loopback a standby trails by a few kB of WAL, and an immediate stop alone lost nothing
 * (`FAULTS_PG_STANDBY_BEHIND=0`: one run, the whole ledger passed), which says nothing of what an
 * asynchronous standby that lags (a busy network, a slow disk, a long checkpoint) loses. The
 * same pause in the synchronous run holds every commit for as long, the price it pays instead.
 */
const STANDBY_BEHIND_MS = standbyBehindMs();

/** `FAULTS_PG_STANDBY_BEHIND` (2s): 0 leaves the link alone, the standby as far behind as it is. */
function standbyBehindMs(): number {
  const text = process.env.FAULTS_PG_STANDBY_BEHIND ?? '2s';
  const value = ms(text as ms.StringValue);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`FAULTS_PG_STANDBY_BEHIND: "${text}" is not a duration (e.g. 2s, 0)`);
  }
  return value;
}
/**
 * From the primary's stop to the promotion: the time a failover manager takes to decide (Patroni
 * waits for its leader key to expire; seconds to tens of seconds), long enough for the readiness
 * probes to see the engine without a primary.
 */
const NO_PRIMARY_MS = 8000;
/** The readiness check's own timeout (2 s) and a probe's: a lost primary is reported by then. */
const READINESS_GRACE_MS = 3000;
/** DELIVERY_TIMEOUT of the suite: what was in flight at the stop has been answered by then. */
const IN_FLIGHT_MS = 5000;
/** How long the engine may take, once the standby is promoted, to report ready again. */
const READY_AGAIN_WITHIN_MS = 20_000;
/** A POST recorded just before the link paused may still have its commit in flight. */
const WINDOW_SLACK_MS = 1000;
/** In the asynchronous run what was lost never arrives: no need to wait the suite's 120 s. */
const ASYNC_SETTLE_TIMEOUT_MS = 45_000;

/**
 * The ledger's checks an asynchronous standby cannot keep: each needs the log complete, and the
 * promoted standby lacks what the old primary committed in its last `STANDBY_BEHIND_MS` (records
 * of attempts, retry rows, sequence claims, whose messages JetStream was told were done). Their
 * findings are in the result (`figures.notAsserted`); what holds is asserted: nothing sent that
 * was not due, every POST signed, every recorded success accepted, no dead letter, clean stops;
 * and, the scenario's own, that everything the ledger finds missing or doubled comes from that
 * window, and the engine's readiness through the gap.
 *
 * Not even the projections equal a fold of the log: the new primary holds a consistent prefix of
 * the old one's log, but the engine writes a delivery's row from the state it holds in memory,
 * and a delivery whose first record was lost then gets a row started from that lost record
 * (`created_at` of an event the log no longer has) over a stream that starts later. The engine
 * trusts a commit it saw succeed; asynchronous replication breaks exactly that.
 */
const NOT_KEPT_ASYNCHRONOUSLY = [
  'settled',
  'every (event, subscribed endpoint) pair arrived',
  'no duplicate outside a crash window',
  'every POST has its attempt in the log (but those a kill -9 cut off)',
  'one delivery per pair, succeeded; none other',
  'per endpoint the receivers saw 1..n, one number per event, the same on every attempt',
  'the log numbers every pair as its receiver saw it (deliveries, events, attempts, claims, counters)',
  'FIFO endpoints: one POST at a time, first accepted in sequence order (crash windows apart)',
  'no delivery stuck',
  'projections equal a fold of the log',
  'metrics agree with the log',
];

/**
 * The first attempt of one unordered delivery in four is refused (503), so that retry rows are
 * waiting in PostgreSQL at the failover, the records the issue expects an asynchronous standby to
 * lose. The FIFO endpoint accepts all: a refused head would hold its whole queue a second.
 */
function refuseSomeFirstAttempts(endpoint: string): AnswerPlan {
  const delay = () => 20 + Math.floor(Math.random() * 61);
  return (post) => {
    const refused =
      !FIFO_ENDPOINTS.has(endpoint) &&
      post.attempt === 1 &&
      createHash('sha1').update(`${post.eventId} ${endpoint}`).digest()[0] % 4 === 0;
    return refused ? { status: 503, delayMs: delay() } : { delayMs: delay() };
  };
}

interface Timeline {
  pausedAt: number;
  stoppedAt: number;
  promotedAt: number;
  switchedAt: number;
  readyAgainAt: number | null;
  lagAtStop: ReplicationState | null;
  readiness: { atMs: number; status: number }[];
  enginePid: number;
  enginesStarted: number;
  sameEngineRunning: boolean;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);

/** The longest time the receivers accepted nothing, from the link's pause until 30 s after the switch. */
function deliveryStop(posts: ReceivedPost[], timeline: Timeline) {
  const from = timeline.pausedAt - 1000;
  const to = timeline.switchedAt + 30_000;
  const times = posts
    .filter((post) => post.outcome === 'accepted' && post.receivedAt >= from)
    .map((post) => post.receivedAt)
    .filter((at) => at <= to)
    .sort((a, b) => a - b);
  let longest = { ms: 0, from: from, to: from };
  for (let i = 1; i < times.length; i += 1) {
    if (times[i] - times[i - 1] > longest.ms) {
      longest = { ms: times[i] - times[i - 1], from: times[i - 1], to: times[i] };
    }
  }
  const lastBeforeStop = times.filter((at) => at < timeline.stoppedAt).pop() ?? null;
  const firstAfterSwitch = times.find((at) => at >= timeline.switchedAt) ?? null;
  return {
    longestGapS: seconds(longest.ms),
    /** Relative to the primary's stop. */
    gapFromS: seconds(longest.from - timeline.stoppedAt),
    gapToS: seconds(longest.to - timeline.stoppedAt),
    lastAcceptedBeforeStopS:
      lastBeforeStop === null ? null : seconds(lastBeforeStop - timeline.stoppedAt),
    firstAcceptedAfterSwitchS:
      firstAfterSwitch === null ? null : seconds(firstAfterSwitch - timeline.switchedAt),
  };
}

/**
 * A primary and a streaming standby; during a paced publish the standby is held behind for
 * `STANDBY_BEHIND_MS`, the primary is stopped hard (`immediate`), and after `NO_PRIMARY_MS` the
 * standby is promoted and the apps' forwarder switched to it (the open connections ended), as a
 * Service's endpoint changes. The same engine process runs throughout.
 */
export function postgresFailover(mode: ReplicationMode): ScenarioDefinition {
  const name = `postgres-failover-${mode}`;
  const synchronous = mode === 'synchronous';
  let pair: PostgresPair | undefined;
  let timeline: Timeline | undefined;
  return {
    name,
    description: `${EVENTS} events at ${PER_SECOND}/s to a primary with a ${mode} streaming standby (pg_basebackup); at ${FAILOVER_AT * 100} % the standby is held ${STANDBY_BEHIND_MS / 1000} s behind, the primary is stopped (immediate), and ${NO_PRIMARY_MS / 1000} s later the standby is promoted and the apps' forwarder switched to it`,
    settings: {
      events: EVENTS,
      perSecond: PER_SECOND,
      failoverAt: FAILOVER_AT,
      replication: mode,
      standbyBehindMs: STANDBY_BEHIND_MS,
      noPrimaryMs: NO_PRIMARY_MS,
      refusedFirstAttempts: 'one unordered delivery in four (503)',
    },
    ...(synchronous
      ? {}
      : { settleTimeoutMs: ASYNC_SETTLE_TIMEOUT_MS, notAsserted: NOT_KEPT_ASYNCHRONOUSLY }),
    startPostgres: async () => {
      pair = await startPostgresPair({
        synchronous,
        keepLogsIn: join(RESULTS_DIR, 'logs', name),
      });
      return pair;
    },
    async run({ stack, fault, log }) {
      const servers = pair!;
      for (const [endpoint, receiver] of stack.receivers) {
        receiver.answerWith(refuseSomeFirstAttempts(endpoint));
      }
      const engine = await stack.startEngine();
      const readyz = () =>
        fetch(`${engine.managementUrl}/readyz`, { signal: AbortSignal.timeout(3000) })
          .then((response) => response.status)
          .catch(() => 0);
      let failover = Promise.resolve();
      await stack.load.publishPaced({
        count: EVENTS,
        perSecond: PER_SECOND,
        onPublished: (published) => {
          if (published !== Math.round(EVENTS * FAILOVER_AT)) {
            return;
          }
          failover = (async () => {
            const pausedAt = Date.now();
            if (STANDBY_BEHIND_MS > 0) {
              servers.replicationLink.pause();
              await sleep(STANDBY_BEHIND_MS);
            }
            const lagAtStop = await servers.replicationState().catch(() => null);
            const stoppedAt = Date.now();
            await servers.stopPrimaryHard();
            // What the link still held dies with the primary, as bytes in transit do.
            servers.replicationLink.dropConnections();
            log(
              `primary stopped (immediate) after ${published} events, the standby ${lagAtStop?.replayLagBytes ?? '?'} bytes of WAL behind`,
            );
            const readiness: Timeline['readiness'] = [];
            while (Date.now() - stoppedAt < NO_PRIMARY_MS) {
              const status = await readyz();
              const atMs = Date.now() - stoppedAt;
              if (atMs >= READINESS_GRACE_MS) {
                readiness.push({ atMs, status });
              }
              await sleep(500);
            }
            await servers.promoteStandby();
            const promotedAt = Date.now();
            servers.switchToStandby();
            const switchedAt = Date.now();
            log(`standby promoted and the forwarder switched to it`);
            fault(`PostgreSQL failover (${mode})`, stoppedAt, switchedAt);
            let readyAgainAt: number | null = null;
            while (readyAgainAt === null && Date.now() - switchedAt < READY_AGAIN_WITHIN_MS) {
              if ((await readyz()) === 200) {
                readyAgainAt = Date.now();
              } else {
                await sleep(200);
              }
            }
            timeline = {
              pausedAt,
              stoppedAt,
              promotedAt,
              switchedAt,
              readyAgainAt,
              lagAtStop,
              readiness,
              enginePid: engine.process.pid,
              enginesStarted: stack.engines.length,
              sameEngineRunning: engine.running && engine.ending === 'running',
            };
          })();
        },
      });
      await failover;
    },
    async verify({ stack, check, figures, log }) {
      const t = timeline;
      if (!t) {
        check('the failover happened', false, 'the scenario ended before its failover');
        return;
      }
      const posts = stack.posts();
      const stop = deliveryStop(posts, t);
      const notReady = t.readiness.filter((probe) => probe.status !== 200);
      const sentWithoutPrimary = posts.filter(
        (post) => post.receivedAt > t.stoppedAt + IN_FLIGHT_MS && post.receivedAt < t.switchedAt,
      );
      figures.failover = {
        replication: mode,
        standbyBehindAtStopBytes: t.lagAtStop?.replayLagBytes ?? null,
        syncStateAtStop: t.lagAtStop?.syncState ?? null,
        /** From the primary's stop to the forwarder's switch: no primary at all. */
        noPrimaryS: seconds(t.switchedAt - t.stoppedAt),
        promoteS: seconds(t.promotedAt - (t.stoppedAt + NO_PRIMARY_MS)),
        readyAgainAfterSwitchS:
          t.readyAgainAt === null ? null : seconds(t.readyAgainAt - t.switchedAt),
        readinessDuringGap: {
          probes: t.readiness.length,
          notReady: notReady.length,
          answered200: t.readiness.length - notReady.length,
        },
        deliveryStop: stop,
        postsWithoutPrimary: sentWithoutPrimary.length,
      };
      log(
        `failover (${mode}): no primary for ${seconds(t.switchedAt - t.stoppedAt)} s; deliveries stopped for ${stop.longestGapS} s (from ${stop.gapFromS} s to ${stop.gapToS} s of the stop); ready again ${seconds(t.readyAgainAt === null ? null : t.readyAgainAt - t.switchedAt)} s after the switch`,
      );
      check(
        'the engine reports not ready while there is no primary',
        notReady.length > 0 && notReady.length === t.readiness.length,
        `/readyz from ${READINESS_GRACE_MS / 1000} s after the stop to the promotion: ${notReady.length} of ${t.readiness.length} probes not ready`,
      );
      check(
        'no attempt starts while there is no primary (the engine holds its work)',
        sentWithoutPrimary.length === 0,
        `${sentWithoutPrimary.length} POSTs arrived between ${IN_FLIGHT_MS / 1000} s after the stop and the switch`,
      );
      check(
        'the same engine is ready again after the promotion, without a restart',
        t.readyAgainAt !== null && t.sameEngineRunning && t.enginesStarted === 1,
        `${t.readyAgainAt === null ? 'not ready' : `ready ${seconds(t.readyAgainAt - t.switchedAt)} s after the switch`}; engine pid ${t.enginePid}, ${t.enginesStarted} engine(s) started, still running: ${t.sameEngineRunning}`,
      );
      if (synchronous) {
        check(
          'the standby was synchronous when the primary was lost',
          t.lagAtStop?.syncState === 'sync',
          `pg_stat_replication: ${JSON.stringify(t.lagAtStop)}`,
        );
        return;
      }
      await judgeAsynchronousLosses(stack, t, check, figures);
    },
  };
}

/**
 * With an asynchronous standby the ledger's complaints are expected; this says what they are and
 * checks that each comes from the window in which the standby was behind (from the link's pause
 * to the primary's stop): an unrecorded POST was sent then, a pair that never arrived had its
 * event published before the stop, a duplicate's first acceptance is one of those unrecorded
 * POSTs. Anything else would be an engine fault, not replication's.
 */
async function judgeAsynchronousLosses(
  stack: Parameters<NonNullable<ScenarioDefinition['verify']>>[0]['stack'],
  t: Timeline,
  check: (name: string, ok: boolean, detail: string) => void,
  figures: Record<string, unknown>,
): Promise<void> {
  const recordedRows = new Map<string, number>();
  (
    await stack.db.query<{ delivery_id: string; attempt: number }>(
      'SELECT delivery_id, attempt FROM delivery_attempts',
    )
  ).rows.forEach((row) => {
    const key = `${row.delivery_id} ${row.attempt}`;
    recordedRows.set(key, (recordedRows.get(key) ?? 0) + 1);
  });
  const inWindow = (at: number) =>
    at >= t.pausedAt - WINDOW_SLACK_MS && at <= t.stoppedAt + WINDOW_SLACK_MS;
  const posts = stack.posts();
  // A delivery whose attempt was recorded on the old primary only is sent again under the same
  // id and attempt number once the promoted standby says it is due: of a key's POSTs, the last
  // ones are those the log holds, the earlier ones went with the old primary.
  const byKey = new Map<string, ReceivedPost[]>();
  for (const post of [...posts].sort((a, b) => a.receivedAt - b.receivedAt)) {
    const key = `${post.deliveryId} ${post.attempt}`;
    byKey.set(key, [...(byKey.get(key) ?? []), post]);
  }
  const unrecorded = [...byKey].flatMap(([key, sent]) =>
    sent.slice(0, Math.max(0, sent.length - (recordedRows.get(key) ?? 0))),
  );
  const unrecordedSet = new Set(unrecorded);
  const accepted = posts.filter((post) => post.outcome === 'accepted');
  const arrived = new Set(accepted.map((post) => `${post.eventId} ${post.endpoint}`));
  const missing = stack.load
    .pairs()
    .filter((pair) => !arrived.has(`${pair.eventId} ${pair.endpoint}`));
  const firstAccepted = new Map<string, ReceivedPost>();
  const duplicates: ReceivedPost[] = [];
  for (const post of [...accepted].sort((a, b) => a.receivedAt - b.receivedAt)) {
    const key = `${post.eventId} ${post.endpoint}`;
    if (firstAccepted.has(key)) {
      duplicates.push(post);
    } else {
      firstAccepted.set(key, post);
    }
  }
  const outside = [
    ...unrecorded
      .filter((post) => !inWindow(post.receivedAt))
      .map((post) => ({
        unrecorded: `${post.deliveryId} #${post.attempt}`,
        atS: seconds(post.receivedAt - t.stoppedAt),
      })),
    ...missing
      .filter((pair) => pair.publishedAt > t.stoppedAt)
      .map((pair) => ({
        missing: `${pair.eventId} ${pair.endpoint}`,
        publishedAtS: seconds(pair.publishedAt - t.stoppedAt),
      })),
    ...duplicates
      .filter((post) => {
        const first = firstAccepted.get(`${post.eventId} ${post.endpoint}`)!;
        return !(unrecordedSet.has(first) && inWindow(first.receivedAt));
      })
      .map((post) => ({
        duplicate: `${post.eventId} ${post.endpoint}`,
        atS: seconds(post.receivedAt - t.stoppedAt),
      })),
  ];
  const missingWithRefusal = missing.filter((pair) =>
    posts.some((post) => post.eventId === pair.eventId && post.endpoint === pair.endpoint),
  );
  figures.asynchronousLosses = {
    windowS: seconds(t.stoppedAt - t.pausedAt),
    /** Pairs never accepted: their retry (or their delivery) was recorded on the old primary only. */
    pairsLost: missing.length,
    pairsLostAfterARefusedAttempt: missingWithRefusal.length,
    pairsLostWithoutAnyPost: missing.length - missingWithRefusal.length,
    lostByEndpoint: countBy(missing.map((pair) => pair.endpoint)),
    /** POSTs whose attempt is not in the promoted standby's log. */
    unrecordedPosts: unrecorded.length,
    unrecordedAccepted: unrecorded.filter((post) => post.outcome === 'accepted').length,
    /** A pair accepted again after the failover: its success was recorded on the old primary only. */
    duplicates: duplicates.length,
    outsideTheWindow: outside.length,
    firstOutside: outside.slice(0, 5),
  };
  check(
    'what asynchronous replication lost was written while the standby was behind',
    outside.length === 0,
    `${missing.length} pairs lost, ${unrecorded.length} POSTs unrecorded, ${duplicates.length} duplicates; ${outside.length} outside the window (link paused ${seconds(t.stoppedAt - t.pausedAt)} s before the stop)${outside.length ? `: ${JSON.stringify(outside.slice(0, 5))}` : ''}`,
  );
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  values.forEach((value) => (counts[value] = (counts[value] ?? 0) + 1));
  return counts;
}
