import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, rssSlopePerMinute, runScenario } from '../harness/scenario';
import { FAULT_SETTINGS } from '../harness/settings';

const SAMPLE_EVERY_MS = 5000;
/** The first minute warms up (JIT, pools, caches); flatness is judged after it. */
const WARM_UP_MS = 60_000;
/** Growth allowed from the middle third of the samples to the last third (medians). */
const FLAT_TOLERANCE_MIB = 32;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};

describe('soak: a steady rate for minutes', () => {
  it(
    'delivers everything with the engine memory flat',
    async () => {
      const { soakMs, soakRate } = FAULT_SETTINGS;
      const events = Math.round((soakMs / 1000) * soakRate);
      const result = await runScenario({
        name: 'soak',
        description: `${events} events at ${soakRate}/s for ${soakMs / 60_000} min (FAULTS_SOAK, FAULTS_SOAK_RATE), no fault; the engine's RSS sampled every ${SAMPLE_EVERY_MS / 1000} s`,
        settings: { soakMs, perSecond: soakRate, events, rssSampleEveryMs: SAMPLE_EVERY_MS },
        rssSampleEveryMs: SAMPLE_EVERY_MS,
        async run({ stack, log }) {
          for (const receiver of stack.receivers.values()) {
            receiver.answerWith(acceptAfter(5, 30));
          }
          await stack.startEngine();
          const tenth = Math.max(1, Math.round(events / 10));
          await stack.load.publishPaced({
            count: events,
            perSecond: soakRate,
            onPublished: (published) => {
              if (published % tenth === 0) {
                log(`${published} of ${events} events published`);
              }
            },
          });
        },
        verify({ stack, check, figures }) {
          const [engine] = stack.engines;
          const afterWarmUp = engine.rss.filter((s) => s.at - engine.startedAt >= WARM_UP_MS);
          const third = Math.floor(afterWarmUp.length / 3);
          const middle = median(afterWarmUp.slice(third, 2 * third).map((s) => s.rssMiB));
          const last = median(afterWarmUp.slice(2 * third).map((s) => s.rssMiB));
          const rss = engine.rss
            .filter((s) => engine.readyAt !== null && s.at >= engine.readyAt)
            .map((s) => s.rssMiB);
          figures.rss = {
            samples: rss.length,
            readyMiB: rss[0],
            afterWarmUpMiB: afterWarmUp[0]?.rssMiB ?? null,
            endMiB: rss[rss.length - 1],
            peakMiB: engine.peakRssMiB,
            middleThirdMedianMiB: middle,
            lastThirdMedianMiB: last,
            slopeAfterWarmUpMiBPerMinute: rssSlopePerMinute(afterWarmUp),
          };
          check(
            'engine memory flat after the warm-up',
            third > 0 && last - middle <= FLAT_TOLERANCE_MIB,
            third > 0
              ? `RSS median ${middle.toFixed(1)} MiB in the middle third, ${last.toFixed(1)} MiB in the last (at most +${FLAT_TOLERANCE_MIB} MiB)`
              : `too short to judge: ${afterWarmUp.length} samples after the warm-up (FAULTS_SOAK at least 2m)`,
          );
        },
      });
      expect(failedChecks(result)).toEqual([]);
    },
    FAULT_SETTINGS.soakMs + 600_000,
  );
});
