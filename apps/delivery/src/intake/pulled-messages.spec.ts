import { PulledMessages } from './pulled-messages';

function pulledOf(tenants: (string | null)[], busy: Set<string>): PulledMessages<number> {
  const pulled = new PulledMessages<number>((tenantId) => !busy.has(tenantId));
  tenants.forEach((tenantId, index) => pulled.push({ message: index, tenantId, publishedAt: 0 }));
  return pulled;
}

describe('PulledMessages', () => {
  it('takes in stream order while every tenant may take', () => {
    const pulled = pulledOf(['ten_a', 'ten_b', 'ten_a'], new Set());
    expect(
      [pulled.takeNext(), pulled.takeNext(), pulled.takeNext()].map((m) => m?.message),
    ).toEqual([0, 1, 2]);
    expect(pulled.takeNext()).toBeUndefined();
    expect(pulled.size).toBe(0);
  });

  it("passes over a waiting tenant's messages to another tenant's behind them", () => {
    const busy = new Set(['ten_a']);
    const pulled = pulledOf(['ten_a', 'ten_a', 'ten_a', 'ten_b', 'ten_a'], busy);

    expect(pulled.peekNext()?.message).toBe(3);
    expect(pulled.takeNext()?.message).toBe(3);
    expect(pulled.takeNext()).toBeUndefined();
    expect(pulled.size).toBe(4);
  });

  it('looks only among the messages it is asked about, leaving them all in place', () => {
    const pulled = pulledOf(['ten_a', 'ten_b', 'ten_c'], new Set(['ten_c']));
    const notA = ({ tenantId }: { tenantId: string | null }) => tenantId !== 'ten_a';

    expect(pulled.peekNext(notA)?.message).toBe(1);
    expect(pulled.peekNext(({ tenantId }) => tenantId === 'ten_c')).toBeUndefined();
    expect(pulled.some(({ tenantId }) => tenantId === 'ten_c')).toBe(true);
    expect(pulled.some(({ tenantId }) => tenantId === 'ten_d')).toBe(false);
    expect(pulled.size).toBe(3);
  });

  it("keeps each tenant's messages in their order once it may take again", () => {
    const busy = new Set(['ten_a']);
    const pulled = pulledOf(['ten_a', 'ten_b', 'ten_a', 'ten_b'], busy);
    expect(pulled.takeNext()?.message).toBe(1);

    busy.delete('ten_a');
    expect(pulled.takeNext()?.message).toBe(0);
    busy.add('ten_a');
    expect(pulled.takeNext()?.message).toBe(3);
    busy.delete('ten_a');
    expect(pulled.takeNext()?.message).toBe(2);
  });

  it('takes a message naming no tenant whoever waits (it is parked, not delivered)', () => {
    const pulled = pulledOf(['ten_a', null], new Set(['ten_a']));
    expect(pulled.takeNext()).toMatchObject({ message: 1, tenantId: null });
  });

  it('asks about each tenant once per look, however many of its messages wait', () => {
    const asked: string[] = [];
    const pulled = new PulledMessages<number>((tenantId) => {
      asked.push(tenantId);
      return tenantId === 'ten_c';
    });
    ['ten_a', 'ten_b', 'ten_a', 'ten_b', 'ten_c'].forEach((tenantId, index) =>
      pulled.push({ message: index, tenantId, publishedAt: 0 }),
    );
    expect(pulled.takeNext()?.message).toBe(4);
    expect(asked).toEqual(['ten_a', 'ten_b', 'ten_c']);
  });

  it('takes out the messages asked for, in order, and keeps the rest in theirs', () => {
    const pulled = pulledOf(['ten_a', 'ten_b', 'ten_a', 'ten_c'], new Set());
    expect(pulled.takeWhere((m) => m.tenantId === 'ten_a').map((m) => m.message)).toEqual([0, 2]);
    expect(pulled.takeAll().map((m) => m.message)).toEqual([1, 3]);
  });

  it('gives every message back, in order, when the intake stops', () => {
    const pulled = pulledOf(['ten_a', 'ten_b'], new Set(['ten_a', 'ten_b']));
    expect(pulled.takeAll().map((m) => m.message)).toEqual([0, 1]);
    expect(pulled.size).toBe(0);
  });
});
