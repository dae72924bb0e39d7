import { RepliesInOneWrite } from './replies-in-one-write';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RepliesInOneWrite', () => {
  it('sends nothing at once, then every answer queued in the turn together, in order, once', async () => {
    const replies = new RepliesInOneWrite();
    const sent: number[] = [];
    for (let seq = 1; seq <= 3; seq += 1) {
      replies.add(() => sent.push(seq));
      await Promise.resolve();
    }
    expect(sent).toEqual([]);
    expect(replies.size).toBe(3);

    await nextTurn();
    expect(sent).toEqual([1, 2, 3]);
    expect(replies.size).toBe(0);

    await nextTurn();
    expect(sent).toEqual([1, 2, 3]);
  });

  it('sends the next turn’s answers in the next turn', async () => {
    const replies = new RepliesInOneWrite();
    const sent: string[] = [];
    replies.add(() => sent.push('first'));
    await nextTurn();
    replies.add(() => sent.push('second'));
    expect(sent).toEqual(['first']);
    await nextTurn();
    expect(sent).toEqual(['first', 'second']);
  });

  it('sends the rest when one answer fails, and sends at once when asked', () => {
    const replies = new RepliesInOneWrite();
    const sent: string[] = [];
    replies.add(() => {
      throw new Error('connection closed');
    });
    replies.add(() => sent.push('after'));
    replies.sendAll();
    expect(sent).toEqual(['after']);
    expect(replies.size).toBe(0);
  });
});
