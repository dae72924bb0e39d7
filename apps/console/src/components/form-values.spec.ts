import { ApiFailure } from '../api/api-failure';
import {
  listFieldErrors,
  orderingFromField,
  rateLimitFromField,
  requiredInstant,
  retryScheduleFromField,
  signatureSchemesFromField,
  timeoutFromField,
} from './form-values';

describe('form values checked before sending', () => {
  it('reads the rate limit', () => {
    expect(rateLimitFromField('')).toBeNull();
    expect(rateLimitFromField('  ')).toBeNull();
    expect(rateLimitFromField(' 250 ')).toBe(250);
  });

  it('refuses a rate limit that is not a whole number, naming the field', () => {
    for (const text of ['1.5', 'ten', '-3', '1e3', '9999999999']) {
      expect(() => rateLimitFromField(text)).toThrow(ApiFailure);
    }
    try {
      rateLimitFromField('x');
    } catch (error) {
      expect((error as ApiFailure).failure.fieldErrors).toEqual({
        rate_limit_per_second: ['must be a whole number from 1 to 10,000, or empty for no limit'],
      });
    }
  });

  it('takes the ticked signature schemes, and refuses none, naming the field', () => {
    expect(signatureSchemesFromField(['hmac-sha256', 'ed25519'])).toEqual([
      'hmac-sha256',
      'ed25519',
    ]);
    expect(signatureSchemesFromField(['ed25519'])).toEqual(['ed25519']);
    try {
      signatureSchemesFromField([]);
      throw new Error('not refused');
    } catch (error) {
      expect((error as ApiFailure).failure.fieldErrors).toEqual({
        signature_schemes: ['choose at least one signature scheme'],
      });
    }
  });

  it('takes the chosen delivery order, and refuses anything else, naming the field', () => {
    expect(orderingFromField('unordered')).toBe('unordered');
    expect(orderingFromField('fifo')).toBe('fifo');
    for (const value of ['', 'FIFO', 'lifo', 'toString', '__proto__']) {
      try {
        orderingFromField(value);
        throw new Error(`${value} not refused`);
      } catch (error) {
        expect((error as ApiFailure).failure.fieldErrors).toEqual({
          ordering: ['choose a delivery order'],
        });
      }
    }
  });

  it('requires an instant', () => {
    expect(requiredInstant('from', '2026-03-01T00:00:00.000Z')).toBe('2026-03-01T00:00:00.000Z');
    expect(() => requiredInstant('from', null)).toThrow(
      'Some of what was entered is not accepted.',
    );
  });

  it('reads the retry schedule as a list, empty as the default', () => {
    expect(retryScheduleFromField('10s, 1m, 1h')).toEqual(['10s', '1m', '1h']);
    expect(retryScheduleFromField(' 10 S ,1m,, ')).toEqual(['10s', '1m']);
    expect(retryScheduleFromField('24h')).toEqual(['24h']);
    expect(retryScheduleFromField('')).toBeNull();
    expect(retryScheduleFromField(' , ')).toBeNull();
    // The API names what it refuses, entry by entry.
    expect(retryScheduleFromField('500ms, 25h')).toEqual(['500ms', '25h']);
  });

  it('reads the timeout, empty as the default, and refuses anything but 1 to 10, naming the field', () => {
    expect(timeoutFromField('')).toBeNull();
    expect(timeoutFromField(' 5 ')).toBe(5);
    expect(timeoutFromField('1')).toBe(1);
    expect(timeoutFromField('10')).toBe(10);
    for (const text of ['0', '11', '2.5', 'five', '-1', '1e1']) {
      try {
        timeoutFromField(text);
        throw new Error(`${text} not refused`);
      } catch (error) {
        expect((error as ApiFailure).failure.fieldErrors).toEqual({
          timeout_seconds: [
            'must be a whole number of seconds from 1 to 10, or empty for the default',
          ],
        });
      }
    }
  });

  it("gathers the API's problems with a list and its entries, saying which entry", () => {
    expect(
      listFieldErrors(
        {
          retry_schedule: ['must have 1 to 8 entries'],
          'retry_schedule[1]': ['must be at least 1s'],
          'retry_schedule[x]': ['not an entry'],
          timeout_seconds: ['other field'],
        },
        'retry_schedule',
      ),
    ).toEqual(['must have 1 to 8 entries', 'entry 2: must be at least 1s']);
    expect(listFieldErrors({ timeout_seconds: ['x'] }, 'retry_schedule')).toBeUndefined();
  });
});
