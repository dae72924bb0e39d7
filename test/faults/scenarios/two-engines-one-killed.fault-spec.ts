import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 300;
const PER_SECOND = 30;
const KILL_AT = 0.4;

describe('fault: two engines, one killed with SIGKILL', () => {
  it('the other takes over what the killed one held, and nothing is lost', async () => {
    const result = await runScenario({
      name: 'two-engines-one-killed',
      description: `two engines share ${EVENTS} events at ${PER_SECOND}/s; one is killed with SIGKILL at ${KILL_AT * 100} % and not started again`,
      settings: { events: EVENTS, perSecond: PER_SECOND, killAt: KILL_AT, engines: 2 },
      async run({ stack, fault, log }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        const [doomed] = await Promise.all([stack.startEngine(), stack.startEngine()]);
        let killed = Promise.resolve();
        await stack.load.publishPaced({
          count: EVENTS,
          perSecond: PER_SECOND,
          onPublished: (published) => {
            if (published === Math.round(EVENTS * KILL_AT)) {
              killed = (async () => {
                const at = Date.now();
                await doomed.kill();
                log(`killed ${doomed.name} (-9) after ${published} events; the other goes on`);
                // Nothing comes back: the survivor must take over at once.
                fault('kill -9 of one engine of two', at, at);
              })();
            }
          },
        });
        await killed;
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
