/** Messages between the bench and its receiver process (bench-receiver.ts), over Node's IPC. */
export type ReceiverCommand =
  /** Starts counting afresh under this name. */
  | { type: 'phase'; name: string }
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
}

export type ReceiverReply =
  | { type: 'ready'; ports: number[] }
  | { type: 'reached'; count: number; at: number }
  | { type: 'stats'; stats: ReceiverStats };
