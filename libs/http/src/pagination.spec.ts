import { decodeCursor, encodeCursor, toPage } from './pagination';
import { ProblemException } from './problems/problem-details';

const isWebhookId = (id: string) => id.startsWith('wh_');

describe('cursor pagination', () => {
  it('round-trips a cursor', () => {
    expect(decodeCursor(encodeCursor('wh_abc'), isWebhookId)).toBe('wh_abc');
    expect(decodeCursor(undefined, isWebhookId)).toBeNull();
  });

  it.each(['garbage', encodeCursor('ten_x'), Buffer.from('{"after":5}').toString('base64url')])(
    'refuses the cursor %s with a problem naming the field',
    (cursor) => {
      expect(() => decodeCursor(cursor, isWebhookId)).toThrow(ProblemException);
      try {
        decodeCursor(cursor, isWebhookId);
      } catch (error) {
        expect((error as ProblemException).problem.errors).toEqual([
          { field: 'cursor', detail: expect.any(String) },
        ]);
      }
    },
  );

  it('pages from limit + 1 rows', () => {
    const rows = [{ id: 'wh_1' }, { id: 'wh_2' }, { id: 'wh_3' }];
    expect(toPage(rows, 2, (row) => row.id)).toEqual({
      data: ['wh_1', 'wh_2'],
      has_more: true,
      next_cursor: encodeCursor('wh_2'),
    });
    expect(toPage(rows.slice(0, 2), 2, (row) => row.id)).toEqual({
      data: ['wh_1', 'wh_2'],
      has_more: false,
      next_cursor: null,
    });
  });
});
