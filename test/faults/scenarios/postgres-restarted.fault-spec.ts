import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 300;
const PER_SECOND = 30;
/** A clean restart (`pg_ctl restart`: fast shutdown), then one as after a crash (immediate). */
const RESTARTS = [
  { at: 0.33, mode: 'fast' },
  { at: 0.66, mode: 'immediate' },
] as const;

describe('fault: PostgreSQL restarted under load', () => {
  it('the engine holds its records through each restart and writes them once it is back', async () => {
    const result = await runScenario({
      name: 'postgres-restarted',
      description: `${EVENTS} events at ${PER_SECOND}/s; PostgreSQL is restarted at ${RESTARTS.map((r) => `${r.at * 100} % (${r.mode} shutdown)`).join(' and ')}`,
      settings: { events: EVENTS, perSecond: PER_SECOND, restarts: RESTARTS },
      async run({ stack, fault, log }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        await stack.startEngine();
        let restarts = Promise.resolve();
        await stack.load.publishPaced({
          count: EVENTS,
          perSecond: PER_SECOND,
          onPublished: (published) => {
            const restart = RESTARTS.find((r) => Math.round(EVENTS * r.at) === published);
            if (restart) {
              restarts = restarts.then(async () => {
                const at = Date.now();
                await stack.postgres.stopServer(restart.mode);
                await stack.postgres.startServer();
                log(`PostgreSQL restarted (${restart.mode}) after ${published} events`);
                fault(`PostgreSQL restart (${restart.mode})`, at);
              });
            }
          },
        });
        await restarts;
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
