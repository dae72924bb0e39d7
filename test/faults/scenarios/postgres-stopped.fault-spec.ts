import { setTimeout as sleep } from 'node:timers/promises';
import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';
import { FAULT_SETTINGS } from '../harness/settings';

const EVENTS = 300;
const PER_SECOND = 20;
const STOP_AT = 0.25;
/** DELIVERY_TIMEOUT of the suite: what was in flight at the stop has answered by then. */
const IN_FLIGHT_MS = 5000;
/** The readiness check's own timeout (2 s) and a probe's: a stop is reported by then. */
const READINESS_GRACE_MS = 3000;

describe('fault: PostgreSQL stopped, then started again', () => {
  it('the engine stops taking work, reports not ready, and delivers everything once it is back', async () => {
    const stopMs = FAULT_SETTINGS.postgresStopMs;
    let stoppedAt = 0;
    let startedAt = 0;
    const result = await runScenario({
      name: 'postgres-stopped',
      description: `${EVENTS} events at ${PER_SECOND}/s; PostgreSQL is stopped (fast shutdown) at ${STOP_AT * 100} % for ${stopMs / 1000} s while events keep arriving, then started`,
      settings: { events: EVENTS, perSecond: PER_SECOND, stopAt: STOP_AT, stopMs },
      async run({ stack, fault, log, figures }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        const engine = await stack.startEngine();
        /** /readyz answers from 3 s after the stop (0: no answer within 3 s). */
        const readiness: number[] = [];
        let outage = Promise.resolve();
        await stack.load.publishPaced({
          count: EVENTS,
          perSecond: PER_SECOND,
          onPublished: (published) => {
            if (published !== Math.round(EVENTS * STOP_AT)) {
              return;
            }
            outage = (async () => {
              stoppedAt = Date.now();
              await stack.postgres.stopServer('fast');
              log(`PostgreSQL stopped after ${published} events, for ${stopMs / 1000} s`);
              while (Date.now() - stoppedAt < stopMs) {
                const status = await fetch(`${engine.managementUrl}/readyz`, {
                  signal: AbortSignal.timeout(3000),
                })
                  .then((response) => response.status)
                  .catch(() => 0);
                if (Date.now() - stoppedAt >= READINESS_GRACE_MS) {
                  readiness.push(status);
                }
                await sleep(1000);
              }
              await stack.postgres.startServer();
              startedAt = Date.now();
              log('PostgreSQL started again');
              fault('PostgreSQL stopped', stoppedAt, startedAt);
            })();
          },
        });
        await outage;
        figures.readinessDuringOutage = {
          probes: readiness.length,
          answered503: readiness.filter((status) => status === 503).length,
          answered200: readiness.filter((status) => status === 200).length,
        };
      },
      verify({ stack, check, figures }) {
        const posts = [...stack.receivers.values()].flatMap((receiver) => receiver.posts);
        const duringOutage = posts.filter(
          (post) => post.receivedAt > stoppedAt + IN_FLIGHT_MS && post.receivedAt < startedAt,
        );
        figures.postsDuringOutage = duringOutage.length;
        check(
          'no attempt starts while PostgreSQL is away',
          duringOutage.length === 0,
          `${duringOutage.length} POSTs arrived between ${IN_FLIGHT_MS / 1000} s after the stop and the start`,
        );
        const readiness = figures.readinessDuringOutage as {
          probes: number;
          answered503: number;
          answered200: number;
        };
        check(
          'the engine reports not ready during the outage',
          readiness.answered503 > 0 && readiness.answered200 === 0,
          `/readyz from ${READINESS_GRACE_MS / 1000} s after the stop: ${readiness.answered503} of ${readiness.probes} probes 503, ${readiness.answered200} 200`,
        );
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 600_000);
});
