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
 * Intake's back-pressure: no further message is taken while `maxMessages` are in hand or
 * `maxDeliveries` of their deliveries are unfinished (the fan-out of the last one taken may go
 * past it). Without the second bound, messages that fan out to many endpoints would hold far
 * more deliveries than the global bound lets run, and the surplus would meet full endpoints and
 * be put off to the schedule.
 */
export class IntakeBackPressure {
  private messages = 0;
  private deliveries = 0;
  /** Wakes the consuming loop when it waits for room. */
  private wakeLoop: (() => void) | undefined;

  constructor(
    private readonly maxMessages: number,
    private readonly maxDeliveries: number,
  ) {}

  /** Counts a message just taken. */
  taken(): MessageInHand {
    this.messages += 1;
    let counted!: () => void;
    const fannedOut = new Promise<void>((resolve) => (counted = resolve));
    return {
      fannedOut,
      counted: (deliveries) => {
        this.deliveries += deliveries;
        counted();
      },
      deliveryFinished: () => {
        this.deliveries -= 1;
        this.wake();
      },
      finished: () => {
        this.messages -= 1;
        this.wake();
      },
    };
  }

  /** Resolves once there is room for one more message. */
  async roomForNext(): Promise<void> {
    while (this.messages >= this.maxMessages || this.deliveries >= this.maxDeliveries) {
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    }
  }

  get messagesInHand(): number {
    return this.messages;
  }

  get deliveriesInHand(): number {
    return this.deliveries;
  }

  private wake(): void {
    const wake = this.wakeLoop;
    this.wakeLoop = undefined;
    wake?.();
  }
}
