import { failedChecks, runScenario } from '../harness/scenario';

const EVENTS = 300;
const PER_SECOND = 30;
/** Share of POSTs whose answer is cut: half after the headers, half within the body. */
const CUT_SHARE = 0.3;

describe('fault: receivers closing the connection mid-answer', () => {
  it('a cut answer is a failed attempt, retried, never taken for a success', async () => {
    const result = await runScenario({
      name: 'receivers-closing-mid-answer',
      description: `${EVENTS} events at ${PER_SECOND}/s; ${CUT_SHARE * 100} % of POSTs are answered with a 200 status line whose answer is cut by closing the connection (after the headers or within the body)`,
      settings: { events: EVENTS, perSecond: PER_SECOND, cutShare: CUT_SHARE },
      // Cut answers are retried at once: the scenario is about what is recorded, not the wait.
      engineEnv: { DELIVERY_RETRY_SCHEDULE: '500ms,1s,1s' },
      async run({ stack }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(() => {
            const draw = Math.random();
            if (draw < CUT_SHARE / 2) {
              return { closeMidAnswer: 'after-headers', delayMs: 10 };
            }
            if (draw < CUT_SHARE) {
              return { closeMidAnswer: 'in-body', delayMs: 10 };
            }
            return { delayMs: 10 + Math.floor(Math.random() * 40) };
          });
        }
        await stack.startEngine();
        await stack.load.publishPaced({ count: EVENTS, perSecond: PER_SECOND });
      },
      verify({ stack, check, figures }) {
        const cut = [...stack.receivers.values()]
          .flatMap((receiver) => receiver.posts)
          .filter((post) => post.outcome === 'closed-mid-answer');
        figures.cutAnswers = cut.length;
        check(
          'answers were cut',
          cut.length > 0,
          `${cut.length} answers cut (each must be a failed attempt: see the success check)`,
        );
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 300_000);
});
