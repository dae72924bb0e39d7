import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock, IntakeMessage } from '../ports';
import { IntakeBackPressure, MessageInHand } from './back-pressure';
import type { IntakePolicy } from './intake-policy';
import { PulledMessages, WaitingMessage } from './pulled-messages';
import { TenantSlotWaits } from './tenant-slot-waits';
import { TenantWindow } from './tenant-window';
import { mayRunAheadOfClaims, TenantsTaken } from './tenants-taken';

/** The bounds of one intake's admission (engine-tuning.ts says why each has its value). */
export interface AdmissionLimits {
  /** Messages handled at once. */
  maxMessagesInFlight: number;
  /** Deliveries of the messages in hand: see IntakeBackPressure. */
  maxDeliveriesInFlight: number;
  /** Messages whose fan-out (stored-body check, endpoints) may run at once. */
  maxFanningOut: number;
  /** One tenant's messages whose fan-out may run at once (their claims queued, ADR 0050). */
  maxFanningOutPerTenant: number;
  /** A tenant's claims run ahead only once no other tenant's message was taken for this long. */
  runAheadAloneForMs: number;
  /** How many of the last messages taken count for who the intake is busy with. */
  tenantWindow: number;
  /** While this many of a tenant's deliveries wait for their endpoint's slot, its next message waits. */
  maxSlotWaitsPerTenant: number;
  /** How often an intake whose policy says it may not take now looks again. */
  yieldPollMs: number;
}

export type PulledWaiting = WaitingMessage<IntakeMessage>;

/** A message in hand, as its tenant's admission counts it. */
export interface AdmittedMessage extends MessageInHand {
  /**
   * Its new event's numbering claim is queued (NumberingRuns): the tenant's next message may be
   * taken now, its claim numbered after this one's, if the tenant has the engine to itself
   * (ADR 0050); else once this one is numbered.
   */
  numberingAsked(): void;
}

/**
 * Which pulled message an intake takes into hand next, and when (ADR 0032): not before there is
 * room in hand (back-pressure), and only a message whose tenant may take one now (its last one is
 * done fanning out, few of its deliveries wait for their endpoint's slot), so that each tenant's
 * messages go in their order and none waits for another tenant's. It also says when the next
 * pull may go (every pulled message that holds it up was taken, and there is room), and how far
 * behind the stream the intake is.
 */
export class IntakeAdmission {
  private readonly backPressure: IntakeBackPressure;
  /** Deliveries in hand by the tenant their message's subject names. */
  private readonly deliveriesByTenant = new Map<string, number>();
  /** The tenants of the last messages taken: who crowds the intake. */
  private readonly recentTenants: TenantWindow;
  /** Pulled, not skipped, not yet taken into hand. */
  private readonly pulled: PulledMessages<IntakeMessage>;
  /** The fan-out going on for each tenant: one at a time per tenant (see `tenantMayTake`). */
  private readonly fanningOutByTenant = new Map<string, Promise<void>>();
  /** Each tenant's messages taken and not yet counted (fanning out, or waiting for a claim). */
  private readonly uncountedByTenant = new Map<string, number>();
  private readonly slotWaits = new TenantSlotWaits();
  private wakeTakerFn: (() => void) | undefined;
  private readonly whenPulledTaken: (() => void)[] = [];
  /** The last message pulled: when it was published, and how many were behind it then. */
  private lastPulledPublishedAt = 0;
  private lastPulledPendingBehind = 0;
  private closed = false;
  private readonly stopped = new AbortController();

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly policy: Pick<IntakePolicy, 'holdsUpPull' | 'mayTake'>,
    private readonly clock: Clock,
    /** Every intake's messages of the engine: whether a tenant has it to itself. */
    private readonly engineTenants: TenantsTaken,
  ) {
    const now = () => clock.now();
    this.backPressure = new IntakeBackPressure(
      limits.maxMessagesInFlight,
      limits.maxDeliveriesInFlight,
      now,
      limits.maxFanningOut,
    );
    this.recentTenants = new TenantWindow(limits.tenantWindow, now);
    this.pulled = new PulledMessages((tenantId) => this.tenantMayTake(tenantId));
  }

  /**
   * Resolves with the room in hand once the next pull may go: every pulled message that holds it
   * up was taken, and there is room for one more message. A laned tenant's messages from before
   * its lane do not hold it up (ADR 0032): they are few, taken one at a time, and every other
   * tenant's events wait behind the next pull in the stream.
   */
  async untilMayPull(): Promise<number> {
    if (this.pullHeldUp() && !this.closed) {
      await new Promise<void>((resolve) => this.whenPulledTaken.push(resolve));
    }
    await this.backPressure.roomForNext();
    return this.backPressure.messageRoom;
  }

  /** A message was just pulled: what the lag is read from. */
  notePulled(message: IntakeMessage): void {
    this.lastPulledPublishedAt = message.time.getTime();
    this.lastPulledPendingBehind = message.info.pending;
  }

  /** Deliveries of the tenant's messages in hand. */
  tenantDeliveriesInHand(tenantId: string | null): number {
    return tenantId === null ? 0 : (this.deliveriesByTenant.get(tenantId) ?? 0);
  }

  /** A pulled message waits to be taken. */
  wait(waiting: PulledWaiting): void {
    this.pulled.push(waiting);
    this.wakeTaker();
  }

  /** Takes out the waiting messages `covered` says were passed over (a lane became known). */
  passOver(covered: (waiting: PulledWaiting) => boolean): PulledWaiting[] {
    const passed = this.pulled.size === 0 ? [] : this.pulled.takeWhere(covered);
    if (passed.length > 0) {
      this.wakeTaker();
    }
    // The pulling loop goes on if what is left does not hold it up.
    this.pulledDrained();
    return passed;
  }

  /** Keeps every waiting message from JetStream's redelivery, like those in hand. */
  keepWaitingWorking(): void {
    this.pulled.forEach((waiting) => waiting.message.working());
  }

  /**
   * The next message to take into hand, once there is room and it may be taken; null once the
   * admission is closed (the intake stops).
   */
  async nextToTake(): Promise<PulledWaiting | null> {
    while (!this.closed) {
      if (this.pulled.size === 0) {
        this.pulledDrained();
        await new Promise<void>((resolve) => (this.wakeTakerFn = resolve));
        continue;
      }
      while (!this.closed && !this.policy.mayTake()) {
        await sleep(this.limits.yieldPollMs, undefined, { signal: this.stopped.signal }).catch(
          () => undefined,
        );
      }
      await this.backPressure.roomForNext();
      if (this.closed) {
        break;
      }
      const next = this.pulled.takeNext();
      this.pulledDrained();
      if (next) {
        return next;
      }
      // Every pulled message waits for its tenant's earlier one: the next may come from a
      // fan-out or a slot wait ending.
      await this.backPressure.waiting(
        Promise.race([
          new Promise<void>((resolve) => (this.wakeTakerFn = resolve)),
          this.slotWaits.anyEnded(),
        ]),
      );
    }
    this.pulledDrained();
    return null;
  }

  /** Counts a message just taken into hand, for its tenant too. */
  admit(tenantId: string | null): AdmittedMessage {
    const inHand = this.backPressure.taken();
    if (tenantId === null) {
      return { ...inHand, numberingAsked: () => undefined };
    }
    this.recentTenants.note(tenantId);
    this.engineTenants.note(tenantId);
    // The tenant's next message may follow once this one's numbering is asked for (claims are
    // numbered in the order asked, ADR 0050) while it is alone on the engine, or else once this
    // one is counted.
    let runAhead!: () => void;
    const mayFollow = Promise.race([
      inHand.fannedOut,
      new Promise<void>((resolve) => (runAhead = resolve)),
    ]);
    const numberingAsked = () => {
      const otherAgoMs = this.engineTenants.otherTenantAgoMs(tenantId);
      if (mayRunAheadOfClaims(otherAgoMs, this.limits.runAheadAloneForMs)) {
        runAhead();
      }
    };
    this.fanningOutByTenant.set(tenantId, mayFollow);
    this.uncountedByTenant.set(tenantId, (this.uncountedByTenant.get(tenantId) ?? 0) + 1);
    void inHand.fannedOut.then(() => {
      const uncounted = this.uncountedByTenant.get(tenantId)! - 1;
      if (uncounted > 0) {
        this.uncountedByTenant.set(tenantId, uncounted);
      } else {
        this.uncountedByTenant.delete(tenantId);
      }
      this.wakeTaker();
    });
    void mayFollow.then(() => {
      if (this.fanningOutByTenant.get(tenantId) === mayFollow) {
        this.fanningOutByTenant.delete(tenantId);
        this.wakeTaker();
      }
    });
    const add = (change: number) => {
      const deliveries = (this.deliveriesByTenant.get(tenantId) ?? 0) + change;
      if (deliveries > 0) {
        this.deliveriesByTenant.set(tenantId, deliveries);
      } else {
        this.deliveriesByTenant.delete(tenantId);
      }
    };
    return {
      fannedOut: inHand.fannedOut,
      numberingAsked,
      counted: (deliveries) => {
        add(deliveries);
        inHand.counted(deliveries);
      },
      deliveryFinished: () => {
        add(-1);
        inHand.deliveryFinished();
      },
      finished: () => inHand.finished(),
    };
  }

  /** Counts one of a tenant's deliveries waiting for its endpoint's slot; call what it returns when over. */
  beginSlotWait(tenantId: string | null): () => void {
    return tenantId === null ? () => undefined : this.slotWaits.begin(tenantId);
  }

  /** Takes nothing more; the waiting messages are returned, to go back to JetStream. */
  close(): PulledWaiting[] {
    this.closed = true;
    this.stopped.abort();
    this.wakeTaker();
    this.pulledDrained();
    return this.pulled.takeAll();
  }

  /** A lane's part of the engine's concurrency changes as lanes open and close. */
  boundDeliveries(maxDeliveries: number): void {
    this.backPressure.boundDeliveries(maxDeliveries);
  }

  /** How long the intake has waited on its work in hand rather than for new messages. */
  get waitedMs(): number {
    return this.backPressure.waitedMs;
  }

  /** The tenants of the last messages taken into hand (skipped ones not counted). */
  get recent(): Pick<TenantWindow, 'size' | 'busiest' | 'otherTenantAgoMs'> {
    return this.recentTenants;
  }

  /** Messages in hand, and pulled ones waiting to be taken. */
  get messagesHeld(): number {
    return this.backPressure.messagesInHand + this.pulled.size;
  }

  /**
   * How far behind the stream the intake is: how long ago the oldest pulled message that may be
   * taken now and holds up the next pull was published; else, while JetStream had messages behind
   * the last one pulled, how long ago that one was published; else 0, caught up.
   */
  lagMs(): number {
    const oldest = this.pulled.peekNext(this.holdsUpPull);
    const now = this.clock.now();
    if (oldest) {
      return Math.max(0, now - oldest.publishedAt);
    }
    return this.lastPulledPendingBehind > 0 ? Math.max(0, now - this.lastPulledPublishedAt) : 0;
  }

  /**
   * Whether a tenant's next message may be taken now. Not while its last one fans out (its
   * endpoints, until its numbering claim is queued: ADR 0050): several fan-outs of one tenant at once took its
   * messages in faster than its endpoints' slots freed (at one hot endpoint a fifth of its
   * deliveries waited past the busy delay and went to the schedule, 346 -> 112 deliveries/s).
   * Nor while `maxFanningOutPerTenant` of its messages wait for their claims, so that
   * another tenant's message finds the intake's fan-out room. Nor while enough of its deliveries wait for their endpoint's slot: the stored-body check is
   * faster than a hot endpoint (144/s with 1,250 deferrals per 10,000 at one answering in 6 ms).
   */
  private tenantMayTake(tenantId: string): boolean {
    return (
      !this.fanningOutByTenant.has(tenantId) &&
      (this.uncountedByTenant.get(tenantId) ?? 0) < this.limits.maxFanningOutPerTenant &&
      this.slotWaits.of(tenantId) < this.limits.maxSlotWaitsPerTenant
    );
  }

  private wakeTaker(): void {
    const wake = this.wakeTakerFn;
    this.wakeTakerFn = undefined;
    wake?.();
  }

  private pullHeldUp(): boolean {
    return this.pulled.some(this.holdsUpPull);
  }

  private readonly holdsUpPull = ({ tenantId, message }: PulledWaiting): boolean =>
    this.policy.holdsUpPull(tenantId, message.seq);

  /** Wakes the pulling loop if nothing pulled holds it up any longer. */
  private pulledDrained(): void {
    if (this.whenPulledTaken.length > 0 && (this.closed || !this.pullHeldUp())) {
      this.whenPulledTaken.splice(0).forEach((wake) => wake());
    }
  }
}
