import { isoFromLocalInput, localInputFromDate } from './datetime-input';

describe('datetime-local values', () => {
  it('round-trips a minute through local time', () => {
    const instant = new Date(2026, 2, 1, 12, 30);
    const local = localInputFromDate(instant);
    expect(local).toBe('2026-03-01T12:30');
    expect(isoFromLocalInput(local)).toBe(instant.toISOString());
  });

  it('accepts seconds and refuses what is not a datetime-local value', () => {
    expect(isoFromLocalInput('2026-03-01T12:30:15')).toBe(
      new Date(2026, 2, 1, 12, 30, 15).toISOString(),
    );
    for (const value of ['', '2026-03-01', '2026-03-01T25:00', 'yesterday', '2026-03-01T12:30Z']) {
      expect(isoFromLocalInput(value)).toBeNull();
    }
  });
});
