/** Messages between the bench and its receiver process (bench-receiver.ts), over Node's IPC. */
export type ReceiverCommand =
  /**
   * Starts counting afresh under this name; with `windowMs`, latencies are also kept per window
   * of arrival time (aligned to the epoch), for figures over time (the storage bench).
   */
  | { type: 'phase'; name: string; windowMs?: number }
  /** Asks for a `reached` reply once this many requests of the phase have arrived. */
  | { type: 'expect'; count: number }
  | { type: 'stats' };

export interface ReceiverStats {
  phase: string;
  count: number;
  /** Date.now() of the first and the last complete request of the phase. */
  firstAt: number;
  lastAt: number;
  /** Arrival of the complete request minus the envelope's created_at (the publisher's clock). */
  latencyMs: { samples: number; p50: number; p90: number; p99: number; max: number };
  /** Per window of arrival time, oldest first, when the phase asked for windows. */
  windows?: LatencyWindow[];
}

/** The requests that arrived in [start, start + windowMs) and their latencies (as above). */
export interface LatencyWindow {
  start: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export type ReceiverReply =
  | { type: 'ready'; ports: number[] }
  | { type: 'reached'; count: number; at: number }
  | { type: 'stats'; stats: ReceiverStats };
