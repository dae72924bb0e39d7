import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../support/wait-for';
import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 60;
const PER_SECOND = 20;
/** Attempts 1 and 2 are refused (503), attempt 3 is accepted: two retries per delivery. */
const REFUSED_ATTEMPTS = 2;
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
      description: `${EVENTS} events at ${PER_SECOND}/s to receivers refusing the first ${REFUSED_ATTEMPTS} attempts (503), retries ${RETRY_SCHEDULE} apart; once every first attempt is recorded the engine is stopped (SIGTERM) for ${STOPPED_MS / 1000} s, past the retries' due times, then started again`,
      settings: {
        events: EVENTS,
        perSecond: PER_SECOND,
        refusedAttempts: REFUSED_ATTEMPTS,
        stoppedMs: STOPPED_MS,
      },
      engineEnv: { DELIVERY_RETRY_SCHEDULE: RETRY_SCHEDULE },
      async run({ stack, fault, log, figures }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith((post) =>
            post.attempt <= REFUSED_ATTEMPTS ? { status: 503 } : { delayMs: 10 },
          );
        }
        const engine = await stack.startEngine();
        await stack.load.publishPaced({ count: EVENTS, perSecond: PER_SECOND });
        const pairs = stack.load.pairs().length;
        await waitFor(
          async () =>
            (
              await stack.db.query<{ n: number }>(
                'SELECT count(*)::int AS n FROM delivery_attempts WHERE attempt = 1',
              )
            ).rows[0].n >= pairs,
          { timeoutMs: 30_000, what: 'every first attempt recorded' },
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
        const byPair = new Map<string, number[]>();
        for (const post of posts) {
          const key = `${post.eventId} ${post.endpoint}`;
          byPair.set(key, [...(byPair.get(key) ?? []), post.attempt]);
        }
        const irregular = [...byPair].filter(
          ([, seen]) => seen.sort((a, b) => a - b).join(',') !== '1,2,3',
        );
        check(
          'each delivery took exactly its three attempts across the stop',
          irregular.length === 0 && byPair.size === stack.load.pairs().length,
          irregular.length === 0
            ? `${byPair.size} pairs, attempts 1, 2 and 3 each, once`
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
