import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario } from '../harness/scenario';

const PER_SECOND = 30;
const STOPS = 2;
/** Each engine delivers this many POSTs before it gets SIGTERM. */
const WORK_BEFORE_STOP = 30;
const TAIL_MS = 3000;

describe('fault: SIGTERM under load', () => {
  it('a graceful stop records every attempt in flight, exits 0 and leaves no duplicate', async () => {
    const result = await runScenario({
      name: 'sigterm-under-load',
      description: `events at ${PER_SECOND}/s to receivers answering in 0.1 to 0.5 s (many attempts in flight); the engine gets SIGTERM ${STOPS} times, each after it delivered ${WORK_BEFORE_STOP} POSTs, and is started again once it has exited; publishing goes on throughout and ${TAIL_MS / 1000} s after the last restart`,
      settings: { perSecond: PER_SECOND, stops: STOPS, workBeforeStop: WORK_BEFORE_STOP },
      async run({ stack, fault, log, figures }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(100, 500));
        }
        let engine = await stack.startEngine();
        const inFlightAtStop: number[] = [];
        let lastRestartAt = Infinity;
        let failure: Error | undefined;
        const stops = (async () => {
          for (let stop = 1; stop <= STOPS; stop += 1) {
            await stack.whenAccepted(WORK_BEFORE_STOP);
            const at = Date.now();
            inFlightAtStop.push(stack.inFlight());
            const exit = await engine.terminate();
            log(
              `${engine.name} stopped by SIGTERM with ${inFlightAtStop[stop - 1]} POSTs in flight, in ${Date.now() - at} ms (exit ${exit.code})`,
            );
            fault('SIGTERM', at);
            engine = await stack.startEngine();
          }
          lastRestartAt = Date.now();
        })().catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
        });
        await stack.load.publishPaced({
          count: 900,
          perSecond: PER_SECOND,
          until: () => failure !== undefined || Date.now() > lastRestartAt + TAIL_MS,
        });
        await stops;
        if (failure !== undefined) {
          throw failure;
        }
        figures.postsInFlightAtSigterm = inFlightAtStop;
      },
      verify({ check, figures }, ledger) {
        check(
          'no duplicate at all (a graceful stop has no crash window)',
          ledger.duplicates.total === 0,
          `${ledger.duplicates.total} events accepted twice by one receiver`,
        );
        const inFlight = figures.postsInFlightAtSigterm as number[];
        check(
          'attempts were in flight at each SIGTERM',
          inFlight.length === STOPS && inFlight.every((n) => n > 0),
          `POSTs being answered at each SIGTERM: ${inFlight.join(', ')} (each must be recorded: see the POST check)`,
        );
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
