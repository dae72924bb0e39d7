import { setTimeout as sleep } from 'node:timers/promises';
import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 300;
const PER_SECOND = 30;
/** Each receiver is down, then up, for these times in turn, starting at its own offset. */
const DOWN_MS = 2000;
const UP_MS = 3000;
const FLAP_FOR_MS = 12_000;

describe('fault: flapping receivers', () => {
  it('retries reach every receiver once it is back, and every refused attempt is recorded', async () => {
    const result = await runScenario({
      name: 'flapping-receivers',
      description: `${EVENTS} events at ${PER_SECOND}/s; every receiver goes down (connections refused) for ${DOWN_MS / 1000} s and up for ${UP_MS / 1000} s in turn, each at its own offset, for ${FLAP_FOR_MS / 1000} s`,
      settings: {
        events: EVENTS,
        perSecond: PER_SECOND,
        downMs: DOWN_MS,
        upMs: UP_MS,
        flapForMs: FLAP_FOR_MS,
      },
      async run({ stack, fault, log, figures }) {
        const receivers = [...stack.receivers.values()];
        receivers.forEach((receiver) => receiver.answerWith(acceptAfter(10, 50)));
        await stack.startEngine();
        const flapStart = Date.now();
        let downs = 0;
        const flapping = receivers.map(async (receiver, index) => {
          await sleep((index * (DOWN_MS + UP_MS)) / receivers.length);
          while (Date.now() - flapStart < FLAP_FOR_MS) {
            const at = Date.now();
            await receiver.goDown();
            downs += 1;
            await sleep(DOWN_MS);
            await receiver.comeUp();
            fault('receiver down', at, Date.now(), receiver.endpoint);
            await sleep(UP_MS);
          }
        });
        await stack.load.publishPaced({ count: EVENTS, perSecond: PER_SECOND });
        await Promise.all(flapping);
        log(`receivers went down ${downs} times in all; all up now`);
        figures.receiverDowns = downs;
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
