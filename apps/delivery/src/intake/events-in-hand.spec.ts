import { EventsInHand } from './events-in-hand';

describe('EventsInHand', () => {
  it('lets a second copy of an event in only once the first is handled', async () => {
    const events = new EventsInHand();
    const order: string[] = [];
    const releaseFirst = await events.hold('ten_a', 'evt_1');
    const second = events.hold('ten_a', 'evt_1').then((release) => {
      order.push('second');
      release();
    });
    await new Promise((resolve) => setImmediate(resolve));
    order.push('first done');
    releaseFirst();
    await second;
    expect(order).toEqual(['first done', 'second']);
    expect(events.size).toBe(0);
  });

  it('keeps copies in line one at a time, and other events and tenants apart', async () => {
    const events = new EventsInHand();
    const first = await events.hold('ten_a', 'evt_1');
    // Another tenant's event of the same id, and another event, are not held up.
    const otherTenant = await events.hold('ten_b', 'evt_1');
    const otherEvent = await events.hold('ten_a', 'evt_2');
    let inHand = 1;
    let most = 1;
    const copies = [1, 2].map(() =>
      events.hold('ten_a', 'evt_1').then(async (release) => {
        inHand += 1;
        most = Math.max(most, inHand);
        await new Promise((resolve) => setImmediate(resolve));
        inHand -= 1;
        release();
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    inHand -= 1;
    first();
    await Promise.all(copies);
    expect(most).toBe(1);
    otherTenant();
    otherEvent();
    expect(events.size).toBe(0);
  });
});
