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

describe('IntakeBackPressure: how saturated the intake is', () => {
  it('counts the time spent waiting for room, the wait going on included', async () => {
    let now = 1000;
    const pressure = new IntakeBackPressure(1, 10, () => now);
    expect(pressure.waitedMs).toBe(0);
    const first = pressure.taken();
    const room = pressure.roomForNext();
    now += 300;
    expect(pressure.waitedMs).toBe(300);
    now += 200;
    first.finished();
    await room;
    now += 1000;

    expect(pressure.waitedMs).toBe(500);
  });

  it('adds nothing when there is room at once', async () => {
    let now = 0;
    const pressure = new IntakeBackPressure(2, 10, () => (now += 50));
    pressure.taken();
    await pressure.roomForNext();
    expect(pressure.waitedMs).toBe(0);
    expect(pressure.messageRoom).toBe(1);
  });

  it('takes a new bound on deliveries at once, waking a waiting intake when it is raised', async () => {
    const pressure = new IntakeBackPressure(10, 2);
    pressure.taken().counted(2);
    const room = pressure.roomForNext();
    expect(await settled(room)).toBe(false);
    pressure.boundDeliveries(3);
    expect(await settled(room)).toBe(true);
  });
});

describe('IntakeBackPressure: waiting on other work in hand', () => {
  it('counts the time until the work settles, once when waits nest', async () => {
    let now = 0;
    const pressure = new IntakeBackPressure(10, 10, () => now);
    let finish!: () => void;
    const fanOut = new Promise<void>((resolve) => (finish = resolve));
    const waited = pressure.waiting(pressure.waiting(fanOut));
    now = 40;
    finish();
    await waited;
    now = 100;

    expect(pressure.waitedMs).toBe(40);
  });
});

describe('IntakeBackPressure: messages fanning out at once', () => {
  it('waits while that many messages are not yet counted, until one is', async () => {
    const pressure = new IntakeBackPressure(10, 100, Date.now, 2);
    const first = pressure.taken();
    pressure.taken();
    const room = pressure.roomForNext();

    expect(await settled(room)).toBe(false);
    first.counted(3);
    expect(await settled(room)).toBe(true);
  });

  it('counts a message that finished without being counted (parked, or failed) as done fanning out', async () => {
    const pressure = new IntakeBackPressure(10, 100, Date.now, 1);
    const message = pressure.taken();
    const room = pressure.roomForNext();
    expect(await settled(room)).toBe(false);
    message.finished();
    expect(await settled(room)).toBe(true);
    pressure.taken().counted(0);
    expect(await settled(pressure.roomForNext())).toBe(true);
  });
});

describe('IntakeBackPressure: several loops waiting', () => {
  it('wakes every waiter when room comes', async () => {
    const pressure = new IntakeBackPressure(1, 10);
    const first = pressure.taken();
    const pulling = pressure.roomForNext();
    const taking = pressure.roomForNext();
    first.finished();

    expect(await settled(pulling)).toBe(true);
    expect(await settled(taking)).toBe(true);
  });
});
