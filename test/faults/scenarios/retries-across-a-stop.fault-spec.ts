import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../support/wait-for';
import { failedChecks, runScenario } from '../harness/scenario';
import { FIFO_ENDPOINTS } from '../harness/topology';

const EVENTS = 60;
const PER_SECOND = 20;
/** Attempts 1 and 2 are refused (503), attempt 3 is accepted: two retries per delivery. */
const REFUSED_ATTEMPTS = 2;
/**
 * A FIFO endpoint sends one delivery at a time, so two retries of each of its deliveries would
 * take minutes (about 6 s each, in turn): its receiver refuses only its first number, and the
 * rest of its queue waits behind that head's retries, across the stop.
 */
const REFUSED_FIFO_NUMBER = '1';
const RETRY_SCHEDULE = '2s,4s';
const STOPPED_MS = 6000;
/** Timestamps are kept to the millisecond in the log and at the receiver. */
const CLOCK_TOLERANCE_MS = 5;

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  next_attempt_at: string | null;
}

describe('fault: retries across a stop', () => {
  it('retries scheduled before a stop are made after it, none early, none lost, none doubled', async () => {
    let readyAgainAt = 0;
    const result = await runScenario({
      name: 'retries-across-a-stop',
      description: `${EVENTS} events at ${PER_SECOND}/s to receivers refusing the first ${REFUSED_ATTEMPTS} attempts (503; at a FIFO endpoint, those of its number ${REFUSED_FIFO_NUMBER} only, its queue waiting behind them), retries ${RETRY_SCHEDULE} apart; once every first attempt to an unordered endpoint is recorded the engine is stopped (SIGTERM) for ${STOPPED_MS / 1000} s, past the retries' due times, then started again`,
      settings: {
        events: EVENTS,
        perSecond: PER_SECOND,
        refusedAttempts: REFUSED_ATTEMPTS,
        stoppedMs: STOPPED_MS,
      },
      engineEnv: { DELIVERY_RETRY_SCHEDULE: RETRY_SCHEDULE },
      async run({ stack, fault, log, figures }) {
        for (const receiver of stack.receivers.values()) {
          const fifo = FIFO_ENDPOINTS.has(receiver.endpoint);
          receiver.answerWith((post) =>
            post.attempt <= REFUSED_ATTEMPTS && (!fifo || post.sequence === REFUSED_FIFO_NUMBER)
              ? { status: 503 }
              : { delayMs: 10 },
          );
        }
        const engine = await stack.startEngine();
        await stack.load.publishPaced({ count: EVENTS, perSecond: PER_SECOND });
        // A FIFO endpoint's later numbers have no first attempt until its head has succeeded.
        const unorderedPairs = stack.load
          .pairs()
          .filter((pair) => !FIFO_ENDPOINTS.has(pair.endpoint)).length;
        await waitFor(
          async () =>
            (
              await stack.db.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM delivery_attempts a
                   JOIN deliveries d ON d.id = a.delivery_id
                  WHERE a.attempt = 1 AND NOT d.ordered`,
              )
            ).rows[0].n >= unorderedPairs,
          { timeoutMs: 30_000, what: 'every first attempt to an unordered endpoint recorded' },
        );
        figures.scheduledAtStop = (
          await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_schedule')
        ).rows[0].n;
        const stoppedAt = Date.now();
        await engine.terminate();
        log(`stopped with ${String(figures.scheduledAtStop)} retries scheduled`);
        await sleep(STOPPED_MS);
        const restartedAt = Date.now();
        await stack.startEngine();
        readyAgainAt = Date.now();
        fault('engine stopped with retries scheduled', stoppedAt, restartedAt);
      },
      async verify({ stack, check, figures }) {
        const attempts = (
          await stack.db.query<AttemptRow>(
            `SELECT data->>'delivery_id' AS delivery_id, (data->>'attempt')::int AS attempt,
                    data->>'next_attempt_at' AS next_attempt_at
               FROM events WHERE type = 'delivery.attempted'`,
          )
        ).rows;
        const dueOf = new Map(
          attempts.map((row) => [`${row.delivery_id} ${row.attempt + 1}`, row.next_attempt_at]),
        );
        const posts = [...stack.receivers.values()].flatMap((receiver) => receiver.posts);
        const retries = posts.filter((post) => post.attempt > 1);
        const early: unknown[] = [];
        const latenessAfterDue: number[] = [];
        const latenessAfterRestart: number[] = [];
        for (const post of retries) {
          const due = Date.parse(dueOf.get(`${post.deliveryId} ${post.attempt}`) ?? '');
          if (!(post.receivedAt >= due - CLOCK_TOLERANCE_MS)) {
            early.push({
              delivery: post.deliveryId,
              attempt: post.attempt,
              due,
              at: post.receivedAt,
            });
          } else if (due < readyAgainAt) {
            latenessAfterRestart.push(post.receivedAt - readyAgainAt);
          } else {
            latenessAfterDue.push(post.receivedAt - due);
          }
        }
        const max = (values: number[]) => (values.length ? Math.max(...values) : null);
        figures.retries = {
          made: retries.length,
          dueDuringTheStop: latenessAfterRestart.length,
          maxAfterRestartMs: max(latenessAfterRestart),
          dueAfterTheRestart: latenessAfterDue.length,
          maxLatenessMs: max(latenessAfterDue),
        };
        check(
          'no retry before its time',
          early.length === 0,
          early.length === 0
            ? `${retries.length} retries, each at or after the time its previous attempt set`
            : `${early.length} early: ${JSON.stringify(early.slice(0, 5))}`,
        );
        const byPair = new Map<string, { attempts: number[]; expected: string }>();
        for (const post of posts) {
          const key = `${post.eventId} ${post.endpoint}`;
          const refused =
            !FIFO_ENDPOINTS.has(post.endpoint) || post.sequence === REFUSED_FIFO_NUMBER;
          const seen = byPair.get(key) ?? { attempts: [], expected: refused ? '1,2,3' : '1' };
          seen.attempts.push(post.attempt);
          byPair.set(key, seen);
        }
        const irregular = [...byPair].filter(
          ([, seen]) => seen.attempts.sort((a, b) => a - b).join(',') !== seen.expected,
        );
        const once = [...byPair.values()].filter((seen) => seen.expected === '1').length;
        check(
          'each delivery took exactly its attempts across the stop (three; one behind a FIFO head)',
          irregular.length === 0 && byPair.size === stack.load.pairs().length,
          irregular.length === 0
            ? `${byPair.size} pairs: ${byPair.size - once} with attempts 1, 2 and 3 each once, ${once} FIFO deliveries not refused with attempt 1 once`
            : `${irregular.length} irregular: ${JSON.stringify(irregular.slice(0, 5))}`,
        );
        check(
          'retries were waiting across the stop',
          Number(figures.scheduledAtStop) > 0 && latenessAfterRestart.length > 0,
          `${String(figures.scheduledAtStop)} scheduled at the stop, ${latenessAfterRestart.length} of them due while stopped`,
        );
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
