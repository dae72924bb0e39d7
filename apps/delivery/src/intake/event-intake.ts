import { SubjectScheme } from '@svc/contracts';
import type { DeliveryMetrics } from '../delivery-metrics';
import { routeOf } from '../operational-events/intake-source';
import type { Clock, IntakeMessage, MessageSource } from '../ports';
import { AdmissionLimits, IntakeAdmission, PulledWaiting } from './admission';
import type { EventHandler } from './handling/event-handler';
import type { IntakePolicy } from './intake-policy';
import type { MessageOutcome, MessageReplies } from './message-replies';
import { PullLoop, PullSizing } from './pull-loop';
import type { TenantsTaken } from './tenants-taken';

export interface IntakeOptions extends AdmissionLimits, PullSizing {
  /** The consumer's ack wait: messages held are marked in progress well within it. */
  ackWaitMs: number;
}

export interface IntakeParts {
  source: MessageSource;
  handler: Pick<EventHandler, 'handle'>;
  replies: MessageReplies;
  subjects: SubjectScheme;
  metrics: Pick<DeliveryMetrics, 'intakeWait'>;
  clock: Clock;
  /** Shared by every intake of the engine (ADR 0050). */
  engineTenants: TenantsTaken;
}

/**
 * One intake: a consumer's messages pulled (PullLoop), sorted as its role says (IntakePolicy),
 * taken into hand as room allows (IntakeAdmission), handled concurrently (EventHandler), and
 * every outcome replied to in one place (MessageReplies). Each message is acknowledged once the
 * record of every one of its deliveries is durable; an invalid one is parked.
 *
 * It pulls only what it has room for (ADR 0032): a message delivered to an engine waits in no
 * client-side buffer, so the main consumer's delivered sequence is close to what is in hand, and
 * a hot tenant's backlog stays in the stream, where its lane takes it over.
 */
export class EventIntake {
  private readonly admission: IntakeAdmission;
  private readonly pulling: PullLoop;
  private loops: Promise<unknown> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private keepWorking: NodeJS.Timeout | undefined;

  constructor(
    private readonly parts: IntakeParts,
    private readonly options: IntakeOptions,
    private readonly policy: IntakePolicy,
  ) {
    this.admission = new IntakeAdmission(options, policy, parts.clock, parts.engineTenants);
    this.pulling = new PullLoop(parts.source, options, policy.warnOnFailedPull);
  }

  start(): Promise<void> {
    this.loops = Promise.all([
      this.pulling.run(
        () => this.admission.untilMayPull(),
        (message) => this.sort(message),
      ),
      this.takeWhileRunning(),
    ]);
    // Pulled messages waiting for room are kept from JetStream's redelivery like those in hand.
    this.keepWorking = setInterval(
      () => this.admission.keepWaitingWorking(),
      this.options.ackWaitMs / 3,
    );
    return Promise.resolve();
  }

  /** Stops taking messages and waits for those in hand; unhandled ones go back to JetStream. */
  async stop(): Promise<void> {
    this.stopping = true;
    // What was pulled and not taken goes back at once, for another engine to take, rather than
    // after the messages in hand are done.
    for (const { message } of this.admission.close()) {
      this.reply(message, { kind: 'release' });
    }
    this.pulling.stop();
    await this.loops;
    this.parts.replies.flush();
    clearInterval(this.keepWorking);
    await Promise.allSettled([...this.inFlight]);
  }

  /** The gauges the lanes read (lanes/lane-manager.ts): see IntakeAdmission. */
  get waitedMs(): number {
    return this.admission.waitedMs;
  }

  get recent(): IntakeAdmission['recent'] {
    return this.admission.recent;
  }

  get messagesHeld(): number {
    return this.admission.messagesHeld;
  }

  lagMs(): number {
    return this.admission.lagMs();
  }

  /**
   * A lane just became known (ADR 0032). The pulled messages it covers are skipped now, as they
   * would have been had it been known when they were pulled, rather than handled by this intake
   * and the lane both.
   */
  passOverCovered(): void {
    const covered = this.admission.passOver(
      ({ tenantId, message }) => tenantId !== null && this.policy.coveredNow(tenantId, message.seq),
    );
    for (const { message } of covered) {
      this.reply(message, { kind: 'skip' });
    }
  }

  /** A lane's part of the engine's concurrency changes as lanes open and close. */
  boundDeliveries(maxDeliveries: number): void {
    this.admission.boundDeliveries(maxDeliveries);
  }

  /** A message just pulled: passed over (skipped or put back) at once, or left to be taken. */
  private sort(message: IntakeMessage): 'passed-over' | 'kept' {
    this.admission.notePulled(message);
    if (this.stopping) {
      this.reply(message, { kind: 'release' });
      return 'kept';
    }
    const tenantId = this.tenantOf(message);
    const decision = this.policy.sort({
      tenantId,
      streamSeq: message.seq,
      deliveryCount: message.info.deliveryCount,
      tenantDeliveriesInHand: this.admission.tenantDeliveriesInHand(tenantId),
    });
    switch (decision.action) {
      case 'skip':
        this.reply(message, { kind: 'skip' });
        return 'passed-over';
      case 'put-back':
        this.reply(message, { kind: 'put-back', delayMs: decision.delayMs });
        return 'kept';
      case 'take':
        this.admission.wait({ message, tenantId, publishedAt: message.time.getTime() });
        return 'kept';
    }
  }

  private async takeWhileRunning(): Promise<void> {
    for (
      let next = await this.admission.nextToTake();
      next;
      next = await this.admission.nextToTake()
    ) {
      if (this.stopping) {
        this.reply(next.message, { kind: 'release' });
        continue;
      }
      this.parts.metrics.intakeWait.observe(
        { intake: this.policy.kind },
        Math.max(0, this.parts.clock.now() - next.publishedAt) / 1000,
      );
      this.handleInHand(next);
    }
  }

  /** Starts handling a message (the taking loop waits for room for the next). */
  private handleInHand({ message, tenantId }: PulledWaiting): void {
    const inHand = this.admission.admit(tenantId);
    // A message waits in hand while the database is away (its records held, or its handling
    // not started): kept in progress so that JetStream does not hand it out again meanwhile.
    const inProgress = setInterval(() => message.working(), this.options.ackWaitMs / 3);
    const handling = this.parts.handler
      .handle(message, { inHand, beginSlotWait: () => this.admission.beginSlotWait(tenantId) })
      .then(
        (outcome) => this.parts.replies.settle(message, outcome),
        (error: unknown) => this.parts.replies.failed(message, error),
      )
      .finally(() => clearInterval(inProgress));
    this.inFlight.add(handling);
    void handling.finally(() => {
      this.inFlight.delete(handling);
      inHand.finished();
    });
  }

  private reply(message: IntakeMessage, outcome: MessageOutcome): void {
    void this.parts.replies.settle(message, outcome);
  }

  private tenantOf(message: IntakeMessage): string | null {
    return routeOf(this.parts.subjects, this.policy.source, message.subject)?.tenantId ?? null;
  }
}
