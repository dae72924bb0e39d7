import { Logger } from '@nestjs/common';
import type { FairnessSettings } from '@svc/config';
import type { LaneIntakeMaker, RunningIntake } from './lane-ports';
import { Lane, laneDeliveryBudget } from './lane-rules';

interface RunningLane {
  consumerName: string;
  intake: RunningIntake;
}

/**
 * Runs one intake per lane this engine knows of, each with its share of the engine's deliveries
 * (`laneDeliveryBudget`, by the tenants' weights), and stops those whose lane is gone.
 */
export class LaneIntakes {
  private readonly logger = new Logger('LaneIntakes');
  private readonly running = new Map<string, RunningLane>();
  /** Lane intakes stopping (their messages in hand finishing): awaited at shutdown only. */
  private readonly stopping = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly makeIntake: LaneIntakeMaker,
    private readonly fairness: Pick<FairnessSettings, 'tenantWeights'>,
    /** DELIVERY_MAX_CONCURRENCY: the lanes share it. */
    private readonly maxConcurrency: number,
  ) {}

  /** Brings the running intakes in line with `lanes`; returns the tenants whose intake stopped. */
  async follow(lanes: ReadonlyMap<string, Lane>): Promise<string[]> {
    if (this.stopped) {
      return [];
    }
    const gone: string[] = [];
    for (const [tenantId, running] of [...this.running]) {
      if (lanes.get(tenantId)?.consumerName !== running.consumerName) {
        this.running.delete(tenantId);
        gone.push(tenantId);
        // Its messages in hand finish in their time (up to an attempt's timeout) meanwhile.
        const stopped = running.intake.stop().finally(() => this.stopping.delete(stopped));
        this.stopping.add(stopped);
      }
    }
    const weights = [...lanes.keys()].map((tenantId) => this.weightOf(tenantId));
    for (const lane of lanes.values()) {
      const budget = laneDeliveryBudget(this.maxConcurrency, this.weightOf(lane.tenantId), weights);
      const running = this.running.get(lane.tenantId);
      if (running) {
        running.intake.boundDeliveries(budget);
        continue;
      }
      const intake = await this.makeIntake(lane, budget).catch((error: unknown) => {
        this.logger.warn(
          `could not start the lane of ${lane.tenantId}: ${(error as Error).message}`,
        );
        return undefined;
      });
      if (intake && !this.stopped) {
        this.running.set(lane.tenantId, { consumerName: lane.consumerName, intake });
        await intake.start();
      }
    }
    return gone;
  }

  /** Stops every lane's intake (their unhandled messages go back to JetStream). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([
      ...[...this.running.values()].map((lane) => lane.intake.stop()),
      ...this.stopping,
    ]);
    this.running.clear();
  }

  private weightOf(tenantId: string): number {
    return this.fairness.tenantWeights[tenantId] ?? 1;
  }
}
