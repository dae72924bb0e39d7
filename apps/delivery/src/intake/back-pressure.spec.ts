import { IntakeBackPressure } from './back-pressure';

/** Whether a promise has settled after pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('IntakeBackPressure', () => {
  it('has room while messages and deliveries are under their bounds', async () => {
    const pressure = new IntakeBackPressure(2, 10);
    pressure.taken().counted(3);

    expect(await settled(pressure.roomForNext())).toBe(true);
  });

  it('waits while the messages in hand are at their bound, until one is finished', async () => {
    const pressure = new IntakeBackPressure(2, 10);
    const first = pressure.taken();
    pressure.taken();
    const room = pressure.roomForNext();

    expect(await settled(room)).toBe(false);
    first.finished();
    expect(await settled(room)).toBe(true);
    expect(pressure.messagesInHand).toBe(1);
  });

  it('waits while the deliveries in hand are at their bound, until one finishes', async () => {
    const pressure = new IntakeBackPressure(10, 3);
    const message = pressure.taken();
    message.counted(3);
    const room = pressure.roomForNext();

    expect(await settled(room)).toBe(false);
    message.deliveryFinished();
    expect(await settled(room)).toBe(true);
    expect(pressure.deliveriesInHand).toBe(2);
  });

  it('lets a message fan out past the bound (the last one taken), then holds the next', async () => {
    const pressure = new IntakeBackPressure(10, 3);
    pressure.taken().counted(5);

    expect(pressure.deliveriesInHand).toBe(5);
    expect(await settled(pressure.roomForNext())).toBe(false);
  });

  it('resolves fannedOut once the deliveries are counted, also when there are none', async () => {
    const pressure = new IntakeBackPressure(10, 10);
    const message = pressure.taken();

    expect(await settled(message.fannedOut)).toBe(false);
    message.counted(0);
    expect(await settled(message.fannedOut)).toBe(true);
    expect(pressure.deliveriesInHand).toBe(0);
  });
});
