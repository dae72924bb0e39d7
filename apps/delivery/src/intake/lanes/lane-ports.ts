import type { Lane, LaneProgress } from './lane-rules';

/**
 * What the lanes need of the world, declared here and implemented by the engine's adapters
 * (PostgreSQL: adapters/postgres/lane-registry.ts; JetStream: adapters/jetstream/lane-consumers.ts) and by the
 * main intake (MainIntakeGauges). The medium tests fake them.
 */

/** The registry of lanes (`intake_lanes`), shared by every engine. */
export interface LaneStore {
  list(): Promise<Lane[]>;
  /** Opens one unless the tenant has one (`opened: false`) or `maxLanes` are open (null). */
  open(
    lane: { tenantId: string; consumerName: string; startSeq: number },
    maxLanes: number,
  ): Promise<{ lane: Lane; opened: boolean } | null>;
  markClosing(tenantId: string, endSeq: number): Promise<boolean>;
  reopen(tenantId: string): Promise<boolean>;
  removeClosed(
    tenantId: string,
    graceMs: number,
    mayGo: (lane: Lane) => Promise<boolean>,
  ): Promise<boolean>;
}

/** The lanes' JetStream consumers, and what the lanes read of the main one and the stream. */
export interface LaneConsumers {
  /** The main consumer: messages not yet delivered, and the last stream sequence it delivered. */
  mainConsumer(): Promise<{ pending: number; deliveredStreamSeq: number }>;
  /** The events stream's last sequence. */
  lastStreamSeq(): Promise<number>;
  /** The name a lane's consumer gets when the lane opens from `startSeq`. */
  consumerNameFor(tenantId: string, startSeq: number): string;
  /** A lane's consumer as JetStream counts it; null when it does not exist. */
  progress(consumerName: string): Promise<LaneProgress | null>;
  /** Creates the lane's consumer unless it exists. */
  ensure(lane: Lane): Promise<void>;
  /** Deletes a consumer; one already gone is no error. */
  remove(consumerName: string): Promise<void>;
  /** The names of every lane consumer of the events stream. */
  laneConsumerNames(): Promise<string[]>;
}

/** Lane changes told to the other engines at once (best effort: they also read every second). */
export interface LaneNotices {
  announce(tenantId: string): void;
  /** Calls `changed` on every notice, and after a reconnection (notices may have been missed). */
  follow(changed: () => void): () => void;
}

/** What the lanes read of the main intake (event-intake.ts). */
export interface MainIntakeGauges {
  /** How long it waited on its work in hand since it started: its saturation over time. */
  readonly waitedMs: number;
  readonly recent: {
    readonly size: number;
    busiest(): { tenantId: string; messages: number } | null;
    otherTenantAgoMs(tenantId: string): number | null;
  };
  /** Messages in hand and pulled: part of the backlog the others wait behind. */
  readonly messagesHeld: number;
  lagMs(): number;
  /** A lane became known: skip the pulled messages it covers. */
  passOverCovered(): void;
}

/** A lane's intake, once started. */
export interface RunningIntake {
  start(): Promise<void>;
  stop(): Promise<void>;
  boundDeliveries(maxDeliveries: number): void;
}

/** Makes the intake of a lane whose consumer exists, with a delivery budget. */
export type LaneIntakeMaker = (lane: Lane, budget: number) => Promise<RunningIntake>;
