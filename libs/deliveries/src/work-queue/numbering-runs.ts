import type { DeliveryNumbers, NewEventClaim, NewEventRequest } from './delivery-numbers';

interface Waiting {
  request: NewEventRequest;
  resolve: (claim: NewEventClaim) => void;
  reject: (error: unknown) => void;
}

/** The most new events one statement numbers (ADR 0050). */
export const MAX_RUN = 16;

/**
 * Told of each numbering statement once it has answered, failed ones included: how many new
 * events it numbered and how long it took. A claim is a commit before a tenant's next message
 * may fan out, so its latency bounds one tenant's deliveries a second; this is how an operator
 * sees it (svc_delivery_numbering_statement_*).
 */
export type NumberingStatementObserver = (events: number, seconds: number) => void;

/**
 * New events' numbering claims, one statement at a time, in the order they are asked for (ADR
 * 0050). A claim asked for while none is under way goes at once, alone, as before; those asked
 * for while one is under way wait for it and then go together, up to MAX_RUN, in one statement
 * and one commit. Nothing waits for claims to come: a run is what piled up behind the last
 * statement. One statement at a time also keeps a tenant's numbers in the order its messages
 * asked for them, which an ordered (FIFO) endpoint's deliveries follow.
 */
export class NumberingRuns {
  private readonly waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly numbers: Pick<DeliveryNumbers, 'claimForNewEvent' | 'claimForNewEvents'>,
    private readonly maxRun = MAX_RUN,
    private readonly observe: NumberingStatementObserver = () => undefined,
  ) {}

  /** Queued at once, before this returns: a later call is numbered after it. */
  claimForNewEvent(request: NewEventRequest): Promise<NewEventClaim> {
    return new Promise<NewEventClaim>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.running) {
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        await this.claim(this.nextRun());
      }
    } finally {
      this.running = false;
    }
  }

  /** The next waiting claims, up to maxRun, stopping before a second copy of one event. */
  private nextRun(): Waiting[] {
    const events = new Set<string>();
    let size = 0;
    while (size < Math.min(this.maxRun, this.waiting.length)) {
      const { payload } = this.waiting[size].request;
      const key = `${payload.tenantId} ${payload.eventId}`;
      if (events.has(key)) {
        break;
      }
      events.add(key);
      size += 1;
    }
    return this.waiting.splice(0, size);
  }

  private async claim(run: Waiting[]): Promise<void> {
    if (run.length === 1) {
      await this.claimAlone(run[0]);
      return;
    }
    let claims: (NewEventClaim | null)[];
    try {
      claims = await this.timed(run.length, () =>
        this.numbers.claimForNewEvents(run.map((waiting) => waiting.request)),
      );
    } catch {
      // One event the statement refuses must not fail the others: each is claimed alone, and
      // only what fails alone fails.
      for (const waiting of run) {
        await this.claimAlone(waiting);
      }
      return;
    }
    for (const [index, waiting] of run.entries()) {
      const claim = claims[index];
      if (claim) {
        waiting.resolve(claim);
      } else {
        await this.claimAlone(waiting);
      }
    }
  }

  private async claimAlone({ request, resolve, reject }: Waiting): Promise<void> {
    try {
      resolve(
        await this.timed(1, () =>
          this.numbers.claimForNewEvent(request.payload, request.endpointIds, request.ordered),
        ),
      );
    } catch (error) {
      reject(error);
    }
  }

  private async timed<T>(events: number, statement: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await statement();
    } finally {
      this.observe(events, (performance.now() - started) / 1000);
    }
  }
}
