/** One message taken by intake, as back-pressure counts it. */
export interface MessageInHand {
  /** Resolves once the message's deliveries are counted (or it turned out to have none). */
  readonly fannedOut: Promise<void>;
  /** The message's deliveries are known: they count until each is finished. */
  counted(deliveries: number): void;
  /** One of its deliveries finished (recorded, or failed to be). */
  deliveryFinished(): void;
  /** The message is handled (acknowledged, parked or sent back). */
  finished(): void;
}

/**
 * Intake's back-pressure: no further message is taken while `maxMessages` are in hand,
 * `maxDeliveries` of their deliveries are unfinished, or `maxFanningOut` of them are not yet
 * counted (their stored-body check and endpoints being read: the fan-out of those may go past
 * the delivery bound). Without the second bound, messages that fan out to many endpoints would
 * hold far more deliveries than the global bound lets run, and the surplus would meet full
 * endpoints and be put off to the schedule. The third lets a few messages fan out at once
 * (ADR 0032): one message waiting for the database no longer holds up the next, nor the main
 * intake's passing over a laned tenant's messages.
 */
export class IntakeBackPressure {
  private messages = 0;
  private deliveries = 0;
  private fanningOut = 0;
  /** Wake the loops waiting for room (the intake's pulling and taking loops may both wait). */
  private readonly waiters: (() => void)[] = [];
  /** Time spent waiting for room, finished waits only; see `waitedMs`. */
  private waitedBeforeMs = 0;
  /** When the wait going on began, if one is. */
  private waitingSince: number | undefined;

  constructor(
    private readonly maxMessages: number,
    private maxDeliveries: number,
    private readonly clock: () => number = Date.now,
    private readonly maxFanningOut = Infinity,
  ) {}

  /** Counts a message just taken. */
  taken(): MessageInHand {
    this.messages += 1;
    this.fanningOut += 1;
    let counted!: () => void;
    let isCounted = false;
    const fannedOut = new Promise<void>((resolve) => (counted = resolve));
    const doneFanningOut = () => {
      if (!isCounted) {
        isCounted = true;
        this.fanningOut -= 1;
        counted();
        this.wake();
      }
    };
    return {
      fannedOut,
      counted: (deliveries) => {
        this.deliveries += deliveries;
        doneFanningOut();
      },
      deliveryFinished: () => {
        this.deliveries -= 1;
        this.wake();
      },
      finished: () => {
        this.messages -= 1;
        doneFanningOut();
        this.wake();
      },
    };
  }

  /** Resolves once there is room for one more message. */
  async roomForNext(): Promise<void> {
    if (!this.full()) {
      return;
    }
    await this.waiting(
      (async () => {
        while (this.full()) {
          await new Promise<void>((resolve) => this.waiters.push(resolve));
        }
      })(),
    );
  }

  /**
   * Counts the time until `work` settles as time the intake waited on its work in hand (for
   * room, or for the last message's fan-out), rather than for messages to come.
   */
  async waiting<T>(work: Promise<T>): Promise<T> {
    if (this.waitingSince !== undefined) {
      return work;
    }
    this.waitingSince = this.clock();
    try {
      return await work;
    } finally {
      this.waitedBeforeMs += this.clock() - this.waitingSince;
      this.waitingSince = undefined;
    }
  }

  /**
   * How long the intake has waited on its work in hand since it was made (see `waiting`), the
   * wait going on included: its increase over an interval, divided by the interval, is how
   * saturated the intake was.
   */
  get waitedMs(): number {
    const current = this.waitingSince === undefined ? 0 : this.clock() - this.waitingSince;
    return this.waitedBeforeMs + current;
  }

  /** Messages that may be taken before the message bound is reached (at least 0). */
  get messageRoom(): number {
    return Math.max(0, this.maxMessages - this.messages);
  }

  /** A new bound on deliveries in hand (a lane's share changes as lanes open and close). */
  boundDeliveries(maxDeliveries: number): void {
    this.maxDeliveries = maxDeliveries;
    this.wake();
  }

  get messagesInHand(): number {
    return this.messages;
  }

  get deliveriesInHand(): number {
    return this.deliveries;
  }

  private full(): boolean {
    return (
      this.messages >= this.maxMessages ||
      this.deliveries >= this.maxDeliveries ||
      this.fanningOut >= this.maxFanningOut
    );
  }

  private wake(): void {
    this.waiters.splice(0).forEach((wake) => wake());
  }
}
