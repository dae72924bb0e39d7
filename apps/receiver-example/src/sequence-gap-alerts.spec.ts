import { SequenceGapAlerts } from './sequence-gap-alerts';

interface Logged {
  level: string;
  msg: string;
  fields?: object;
}

function alerts(windowMs = 1000) {
  const clock = { ms: 0 };
  const logged: Logged[] = [];
  const gapAlerts = new SequenceGapAlerts(
    windowMs,
    (level, msg, fields) => logged.push({ level, msg, fields }),
    () => clock.ms,
  );
  const arrive = (sequence: number | undefined) =>
    gapAlerts.note({ sequence, receivedAt: new Date(clock.ms) });
  return { clock, logged, gapAlerts, arrive };
}

describe('SequenceGapAlerts', () => {
  it('logs nothing for a gap still within the window, and counts it', () => {
    const { clock, logged, gapAlerts, arrive } = alerts();
    arrive(1);
    arrive(3);
    clock.ms = 1000;
    gapAlerts.check();
    expect(logged).toEqual([]);
    expect(gapAlerts.openGapCount).toBe(1);
  });

  it('warns once about numbers missing past the window, with the open gaps and what to do', () => {
    const { clock, logged, gapAlerts, arrive } = alerts();
    arrive(1);
    arrive(4);
    clock.ms = 1001;
    gapAlerts.check();
    gapAlerts.check();
    expect(logged).toEqual([
      {
        level: 'warn',
        msg: 'X-SVC-Sequence numbers missing past the retry window',
        fields: {
          missing_from: 2,
          missing_to: 3,
          open_since: '1970-01-01T00:00:00.000Z',
          gap_window_ms: 1000,
          open_gaps: 1,
          next_step: 'find the delivery in GET /v1/deliveries?status=abandoned and replay it',
        },
      },
    ]);
  });

  it('says so when a number reported missing arrives after all', () => {
    const { clock, logged, gapAlerts, arrive } = alerts();
    arrive(1);
    arrive(3);
    clock.ms = 2000;
    gapAlerts.check();
    arrive(2);
    expect(logged.at(-1)).toEqual({
      level: 'info',
      msg: 'a delivery reported missing arrived',
      fields: { sequence: 2 },
    });
    expect(gapAlerts.openGapCount).toBe(0);
  });

  it('ignores deliveries without a number (test events)', () => {
    const { clock, logged, gapAlerts, arrive } = alerts();
    arrive(1);
    arrive(undefined);
    arrive(2);
    clock.ms = 5000;
    gapAlerts.check();
    expect(logged).toEqual([]);
    expect(gapAlerts.openGapCount).toBe(0);
  });
});
