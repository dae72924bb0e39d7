import { setTimeout as sleep } from 'node:timers/promises';
import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 300;
const PER_SECOND = 30;
const KILL_AT = 0.33;
const DOWN_MS = 5000;

describe('fault: NATS killed under load', () => {
  it('the engine and the publisher reconnect to the restarted server, and nothing is lost', async () => {
    const result = await runScenario({
      name: 'nats-killed-under-load',
      description: `${EVENTS} events at ${PER_SECOND}/s; nats-server is killed with SIGKILL at ${KILL_AT * 100} % and started again on the same port and store ${DOWN_MS / 1000} s later (the publisher retries each event until acknowledged)`,
      settings: { events: EVENTS, perSecond: PER_SECOND, killAt: KILL_AT, downMs: DOWN_MS },
      async run({ stack, fault, log }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        await stack.startEngine();
        let restarted = Promise.resolve();
        await stack.load.publishPaced({
          count: EVENTS,
          perSecond: PER_SECOND,
          onPublished: (published) => {
            if (published === Math.round(EVENTS * KILL_AT)) {
              restarted = (async () => {
                const at = Date.now();
                await stack.natsServer.kill();
                log(`killed nats-server (-9) after ${published} events`);
                await sleep(DOWN_MS);
                await stack.natsServer.start();
                log('nats-server started again');
                fault('nats-server kill -9', at);
              })();
            }
          },
        });
        await restarted;
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
