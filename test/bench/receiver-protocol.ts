/** Messages between the bench and its receiver process (bench-receiver.ts), over Node's IPC. */
export type ReceiverCommand =
  /**
   * Starts counting afresh under this name; with `windowMs`, latencies are also kept per window
   * of arrival time (aligned to the epoch), for figures over time (the storage bench).
   */
  | { type: 'phase'; name: string; windowMs?: number }
  /** Asks for a `reached` reply once this many counted first attempts of the phase have arrived. */
  | { type: 'expect'; count: number }
  | { type: 'stats' }
  /** How each port answers from now on, by port index; ports not named answer 200 at once. */
  | { type: 'configure'; behaviours: Record<number, PortBehaviour> };

/**
 * How one port answers. A delay longer than the engine's DELIVERY_TIMEOUT is a receiver that
 * hangs past the timeout: the engine gives up and closes the connection before the answer.
 */
export interface PortBehaviour {
  /** Status of every answer (an empty body). */
  status: number;
  /** How long after the whole request arrived the answer is sent. */
  delayMs: number;
  /**
   * Whether its requests count towards the phase's `count` and latencies (the healthy endpoints
   * whose deliveries a run waits for); the others are only tallied in `uncounted`.
   */
  counted: boolean;
  /**
   * Whether the port notes each request's X-SVC-Sequence in order of arrival and the most
   * requests it held at once (ReceiverStats.sequences): what a FIFO endpoint promises. Off by
   * default, so that large runs do not ship every number over IPC.
   */
  recordSequences?: boolean;
}

/** What one port saw of X-SVC-Sequence in a phase, when its behaviour asked for it. */
export interface PortSequences {
  /** Every request's number (retries too), in the order the requests' headers arrived. */
  arrived: number[];
  /** Requests without a valid number (test events carry none). */
  unnumbered: number;
  /** The most requests the port held at once: from the headers' arrival until its answer went. */
  maxInFlight: number;
}

export interface ReceiverStats {
  phase: string;
  /** First attempts (X-SVC-Delivery-Attempt 1) that arrived at counted ports. */
  count: number;
  /** Later attempts (retries) that arrived at counted ports; not in `count` nor the latencies. */
  retries: number;
  /** Requests that arrived at ports that do not count (failing or hanging endpoints). */
  uncounted: number;
  /** Date.now() of the first and the last complete counted request of the phase. */
  firstAt: number;
  lastAt: number;
  /** Arrival of the complete request minus the envelope's created_at (the publisher's clock). */
  latencyMs: { samples: number; p50: number; p90: number; p99: number; max: number };
  /** Per window of arrival time, oldest first, when the phase asked for windows. */
  windows?: LatencyWindow[];
  /** By port index, the ports whose behaviour has `recordSequences`. */
  sequences?: Record<number, PortSequences>;
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
