import { RuleViolation } from './rule-violation';

/**
 * An endpoint's own retry policy (ADR 0048): `retry_schedule`, the waits before each retry (so
 * attempts = entries + 1), and `timeout_seconds`, each attempt's limit. Absent (null is the
 * caller's to read as absent), the specification's apply.
 */
export const RETRY_SCHEDULE_MAX_ENTRIES = 8;
export const RETRY_DELAY_MIN_MS = 1_000;
export const RETRY_DELAY_MAX_MS = 24 * 3600_000;
export const TIMEOUT_SECONDS_MIN = 1;
export const TIMEOUT_SECONDS_MAX = 10;

/** A whole number of seconds, minutes or hours, without leading zeros: `30s`, `5m`, `2h`. */
const RETRY_DELAY = /^([1-9][0-9]*)(s|m|h)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3600_000 } as const;

function delayMs(entry: string): number | null {
  const match = RETRY_DELAY.exec(entry);
  if (match === null) {
    return null;
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * `retry_schedule`: an array of 1 to 8 durations, each `^[1-9][0-9]*(s|m|h)$` and from 1 s to
 * 24 h inclusive. The array's problems name `retry_schedule`, an entry's `retry_schedule[i]`.
 */
export function checkRetrySchedule(raw: unknown): RuleViolation[] {
  if (!Array.isArray(raw)) {
    return [
      {
        field: 'retry_schedule',
        detail: 'must be an array of durations, such as ["30s", "5m", "2h"]',
      },
    ];
  }
  if (raw.length < 1 || raw.length > RETRY_SCHEDULE_MAX_ENTRIES) {
    return [
      {
        field: 'retry_schedule',
        detail: `must have 1 to ${RETRY_SCHEDULE_MAX_ENTRIES} entries (one per retry); it has ${raw.length}`,
      },
    ];
  }
  return raw.flatMap((entry: unknown, index) => {
    const field = `retry_schedule[${index}]`;
    const ms = typeof entry === 'string' ? delayMs(entry) : null;
    if (ms === null) {
      return [
        {
          field,
          detail:
            'must be a duration such as 30s, 5m or 2h: a whole number without leading zeros, then s, m or h',
        },
      ];
    }
    if (ms < RETRY_DELAY_MIN_MS || ms > RETRY_DELAY_MAX_MS) {
      return [{ field, detail: 'must be from 1s to 24h' }];
    }
    return [];
  });
}

/** `timeout_seconds`: a whole number from 1 to 10. */
export function checkTimeoutSeconds(raw: unknown): RuleViolation[] {
  if (
    typeof raw !== 'number' ||
    !Number.isInteger(raw) ||
    raw < TIMEOUT_SECONDS_MIN ||
    raw > TIMEOUT_SECONDS_MAX
  ) {
    return [
      {
        field: 'timeout_seconds',
        detail: `must be a whole number of seconds from ${TIMEOUT_SECONDS_MIN} to ${TIMEOUT_SECONDS_MAX}: the specification's 10 s is the ceiling`,
      },
    ];
  }
  return [];
}

/** The wait of a checked `retry_schedule` entry, in milliseconds: `30s` is 30000. */
export function retryDelayMs(entry: string): number {
  const ms = delayMs(entry);
  if (ms === null) {
    throw new Error(`retryDelayMs: not a checked retry_schedule entry: ${JSON.stringify(entry)}`);
  }
  return ms;
}
