import type { Clock } from '../../ports';
import type { LaneAnswers, PulledMessage } from '../intake-policy';
import { Lane, lanePutsBack, mainIntakeSkips, mainPullsPast, mainPutsBack } from './lane-rules';

export interface LaneViewSettings {
  /** A view older than this skips nothing (lane-rules.ts, `mainIntakeSkips`). */
  maxViewAgeMs: number;
  /** How long the main intake puts a laned tenant's message back for. */
  mainPutBackMs: number;
  /** How long a closing lane puts a message after its end back for. */
  putBackMs: number;
  /** DELIVERY_MAX_CONCURRENCY and INTAKE_HOT_TENANT_SHARE: a laned tenant's share of the intake. */
  maxConcurrency: number;
  hotTenantShare: number;
}

/**
 * What this engine knows of the lanes (ADR 0032): the registry as last read, the lanes it learned
 * of since, and the tenants it is opening a lane for. The intakes' policies ask it their
 * questions (LaneAnswers); the rules are lane-rules.ts.
 */
export class LaneView implements LaneAnswers {
  private lanes: ReadonlyMap<string, Lane> = new Map();
  /** When the registry read that the view comes from began (-Infinity: never read). */
  private readAt = -Infinity;
  /** Tenants this engine is opening a lane for right now (see `mainPutBackMs`). */
  private readonly opening = new Set<string>();

  constructor(
    private readonly settings: LaneViewSettings,
    private readonly clock: Clock,
  ) {}

  covers(tenantId: string, streamSeq: number): boolean {
    return mainIntakeSkips(
      this.lanes.get(tenantId),
      streamSeq,
      this.ageMs(),
      this.settings.maxViewAgeMs,
    );
  }

  pullsPast(tenantId: string, streamSeq: number): boolean {
    return mainPullsPast(
      this.lanes.get(tenantId),
      streamSeq,
      this.ageMs(),
      this.settings.maxViewAgeMs,
    );
  }

  mainPutBackMs(pulled: PulledMessage): number | null {
    const { tenantId } = pulled;
    return tenantId !== null &&
      mainPutsBack(
        {
          lane: this.lanes.get(tenantId),
          opening: this.opening.has(tenantId),
          streamSeq: pulled.streamSeq,
          tenantDeliveriesInHand: pulled.tenantDeliveriesInHand,
        },
        this.settings.maxConcurrency,
        this.settings.hotTenantShare,
      )
      ? this.settings.mainPutBackMs
      : null;
  }

  lanePutBackMs(tenantId: string, pulled: PulledMessage): number | null {
    return lanePutsBack(this.lanes.get(tenantId), pulled.streamSeq, pulled.deliveryCount)
      ? this.settings.putBackMs
      : null;
  }

  /**
   * The lanes as the registry read at `readAt` has them. Says whether one was new to this view,
   * and which tenants' lanes were closing in it and are open again (reopened).
   */
  replace(lanes: readonly Lane[], readAt: number): { learned: boolean; reopened: string[] } {
    const learned = lanes.some((lane) => !this.lanes.has(lane.tenantId));
    const reopened = lanes
      .filter((lane) => lane.endSeq === null && this.lanes.get(lane.tenantId)?.endSeq != null)
      .map((lane) => lane.tenantId);
    this.lanes = new Map(lanes.map((lane) => [lane.tenantId, lane]));
    this.readAt = readAt;
    return { learned, reopened };
  }

  /** A lane this engine just opened or found, before the next read of the registry. */
  learn(lane: Lane): void {
    this.lanes = new Map(this.lanes).set(lane.tenantId, lane);
  }

  /** Until `done` is called, the main intake puts the tenant's messages back. */
  beginOpening(tenantId: string): () => void {
    this.opening.add(tenantId);
    return () => this.opening.delete(tenantId);
  }

  get(tenantId: string): Lane | undefined {
    return this.lanes.get(tenantId);
  }

  all(): ReadonlyMap<string, Lane> {
    return this.lanes;
  }

  private ageMs(): number {
    return this.clock.now() - this.readAt;
  }
}
