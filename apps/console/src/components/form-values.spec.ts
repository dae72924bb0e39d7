import { ApiFailure } from '../api/api-failure';
import {
  orderingFromField,
  rateLimitFromField,
  requiredInstant,
  signatureSchemesFromField,
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
});
