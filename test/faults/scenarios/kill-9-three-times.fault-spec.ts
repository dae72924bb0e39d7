import { setTimeout as sleep } from 'node:timers/promises';
import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const PER_SECOND = 30;
const KILLS = 3;
/** Each engine delivers this many POSTs before it is killed, so every kill cuts work short. */
const WORK_BEFORE_KILL = 40;
const DOWN_MS = 1000;
/** Publishing goes on this long after the last restart. */
const TAIL_MS = 3000;

describe('fault: kill -9 three times in one run', () => {
  it('loses no event, records every attempt but those the kills cut off, and resumes', async () => {
    const result = await runScenario({
      name: 'kill-9-three-times',
      description: `events at ${PER_SECOND}/s; the engine is killed with SIGKILL ${KILLS} times, each after it delivered ${WORK_BEFORE_KILL} POSTs, and started again ${DOWN_MS} ms later; publishing goes on throughout and ${TAIL_MS / 1000} s after the last restart`,
      settings: {
        perSecond: PER_SECOND,
        kills: KILLS,
        workBeforeKill: WORK_BEFORE_KILL,
        downMs: DOWN_MS,
      },
      async run({ stack, fault, log, figures }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        let engine = await stack.startEngine();
        const inFlightAtKill: number[] = [];
        let lastRestartAt = Infinity;
        let failure: Error | undefined;
        const kills = (async () => {
          for (let kill = 1; kill <= KILLS; kill += 1) {
            await stack.whenAccepted(WORK_BEFORE_KILL);
            const at = Date.now();
            inFlightAtKill.push(stack.inFlight());
            await engine.kill();
            log(`killed ${engine.name} (-9) with ${inFlightAtKill[kill - 1]} POSTs in flight`);
            await sleep(DOWN_MS);
            fault('kill -9', at);
            engine = await stack.startEngine();
          }
          lastRestartAt = Date.now();
        })().catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
        });
        // Events keep coming while the engine is down: they wait in JetStream.
        await stack.load.publishPaced({
          count: 900,
          perSecond: PER_SECOND,
          until: () => failure !== undefined || Date.now() > lastRestartAt + TAIL_MS,
        });
        await kills;
        if (failure !== undefined) {
          throw failure;
        }
        figures.postsInFlightAtKill = inFlightAtKill;
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
