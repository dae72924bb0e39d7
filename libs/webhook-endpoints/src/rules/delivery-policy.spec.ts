import {
  checkRetrySchedule,
  checkTimeoutSeconds,
  RETRY_SCHEDULE_MAX_ENTRIES,
  retryDelayMs,
} from './delivery-policy';

describe('checkRetrySchedule', () => {
  it.each([
    [['30s']],
    [['1s', '59s', '1m', '5m', '30m', '1h', '2h', '24h']],
    [['86400s']],
    [['1440m']],
    [['5m', '1m']],
  ])('accepts %j', (schedule) => {
    expect(checkRetrySchedule(schedule)).toEqual([]);
  });

  it.each([['30s'], [null], [undefined], [30], [{ 0: '30s' }]])(
    'refuses %j, which is not an array',
    (raw) => {
      expect(checkRetrySchedule(raw)).toEqual([
        { field: 'retry_schedule', detail: expect.stringMatching(/must be an array of durations/) },
      ]);
    },
  );

  it(`takes 1 to ${RETRY_SCHEDULE_MAX_ENTRIES} entries`, () => {
    expect(checkRetrySchedule([])).toEqual([
      { field: 'retry_schedule', detail: expect.stringMatching(/1 to 8 entries.*it has 0/) },
    ]);
    expect(checkRetrySchedule(Array(8).fill('1m'))).toEqual([]);
    expect(checkRetrySchedule(Array(9).fill('1m'))).toEqual([
      { field: 'retry_schedule', detail: expect.stringMatching(/1 to 8 entries.*it has 9/) },
    ]);
  });

  it.each([
    '30',
    's',
    '0s',
    '030s',
    '1.5m',
    '-1s',
    '1d',
    '1S',
    '1 s',
    ' 1s',
    '1s ',
    '1ms',
    '',
    '１s',
  ])('refuses the entry %j, showing the expected form', (entry) => {
    expect(checkRetrySchedule(['1m', entry])).toEqual([
      {
        field: 'retry_schedule[1]',
        detail: expect.stringMatching(/a duration such as 30s, 5m or 2h/),
      },
    ]);
  });

  it.each([[30], [null], [['30s']], [{ s: 30 }]])('refuses the non-string entry %j', (entry) => {
    expect(checkRetrySchedule([entry])).toEqual([
      { field: 'retry_schedule[0]', detail: expect.stringMatching(/a duration such as 30s/) },
    ]);
  });

  it.each(['25h', '1441m', '86401s', '99999999999999999999999h'])(
    'refuses %s, over 24 hours',
    (entry) => {
      expect(checkRetrySchedule([entry])).toEqual([
        { field: 'retry_schedule[0]', detail: 'must be from 1s to 24h' },
      ]);
    },
  );

  it('names every bad entry', () => {
    expect(checkRetrySchedule(['30s', 'x', '5m', '48h']).map((v) => v.field)).toEqual([
      'retry_schedule[1]',
      'retry_schedule[3]',
    ]);
  });
});

describe('checkTimeoutSeconds', () => {
  it.each([1, 5, 10])('accepts %d', (seconds) => {
    expect(checkTimeoutSeconds(seconds)).toEqual([]);
  });

  it.each([0, 11, 30, -1, 1.5, 9.999, NaN, Infinity, '5', null, undefined, true])(
    'refuses %p',
    (raw) => {
      expect(checkTimeoutSeconds(raw)).toEqual([
        {
          field: 'timeout_seconds',
          detail:
            "must be a whole number of seconds from 1 to 10: the specification's 10 s is the ceiling",
        },
      ]);
    },
  );
});

describe('retryDelayMs', () => {
  it.each([
    ['1s', 1_000],
    ['30s', 30_000],
    ['5m', 300_000],
    ['90m', 5_400_000],
    ['2h', 7_200_000],
    ['24h', 86_400_000],
  ])('reads %s as %d ms', (entry, ms) => {
    expect(retryDelayMs(entry)).toBe(ms);
  });

  it('throws on an entry that was not checked', () => {
    expect(() => retryDelayMs('5 minutes')).toThrow(/not a checked retry_schedule entry/);
  });
});
