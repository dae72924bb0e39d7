import { DELIVERY_HEADERS } from '@svc/contracts';
import { SEQUENCE_HEADER, sequenceOf } from './sequence-header';

describe('sequenceOf', () => {
  it('reads the header the engine sends', () => {
    expect(SEQUENCE_HEADER).toBe(DELIVERY_HEADERS.sequence.toLowerCase());
  });

  it('reads the number of X-SVC-Sequence', () => {
    expect(sequenceOf({ 'x-svc-sequence': '1' })).toBe(1);
    expect(sequenceOf({ 'x-svc-sequence': '9007199254740991' })).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('gives none without the header, as on test events', () => {
    expect(sequenceOf({})).toBeUndefined();
  });

  it.each(['', '0', '-3', '1.5', '01', ' 7', '7 ', 'abc', '9007199254740993'])(
    'gives none for %j, which is not a sequence number',
    (value) => {
      expect(sequenceOf({ 'x-svc-sequence': value })).toBeUndefined();
    },
  );
});
