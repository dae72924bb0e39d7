/**
 * Every tuning constant of the delivery engine, in one place. Configuration (README,
 * "Configuration") sets what operators choose: timeouts, the retry schedule, concurrency bounds.
 * These are the engine's own trade-offs, each with why it has its value; delivery.module.ts, the
 * engine's composition root, hands them to the parts that use them.
 */
export const ENGINE_TUNING = {
  /** Between tries to start (provision JetStream, bind the consumer) while NATS is not there. */
  startRetryMs: 2000,
  intake: {
    /**
     * A first attempt meeting its endpoint at its concurrency bound waits this long for a slot,
     * then goes to the schedule this much later: long enough for a fast receiver to free a slot,
     * short enough that a burst to one endpoint does not hold the intake.
     */
    busyEndpointDelayMs: 250,
    /** A message whose handling failed (the database away) comes back from JetStream after this. */
    retryFailedMessageMs: 5000,
  },
  scheduler: {
    /** Due deliveries claimed per query: one round trip serves many, none waits long for another. */
    batchSize: 100,
    /**
     * A claim lasts the delivery timeout plus this: a claimed attempt must be made and recorded
     * within it. Too short risks a second POST (at least once allows it; the record of the
     * slower one goes to the delivery that won), too long delays retries after a crash.
     */
    claimMarginMs: 5000,
    /** A claimed delivery whose endpoint is at its bound is tried again this much later. */
    busyEndpointDelayMs: 250,
    /** How often `svc_delivery_due_backlog` is sampled (a count over the schedule). */
    backlogSampleMs: 5000,
  },
  recorder: {
    /** Records per transaction at most. */
    maxBatch: 500,
    /** How long the first record of a batch waits for company (the latency bought for batching). */
    lingerMs: 2,
    /** Transactions in flight at once. */
    maxConcurrentCommits: 3,
    /** A record racing more writers than this in a row is a fault, not a race: it is reported. */
    maxRaces: 5,
    /** While the database fails, held records are tried again this often. */
    retryHeldMs: 1000,
    /** At shutdown, how long held records may wait for the database before they are given up. */
    drainGiveUpMs: 10_000,
  },
  retention: {
    /**
     * Partition maintenance runs a quarter of a partition's width apart, at most this far: with
     * three partitions made ahead (libs/database), a stalled job has days to be noticed at the
     * default width, and the retention alert fires long before inserts could find none.
     */
    maxIntervalMs: 300_000,
    minIntervalMs: 5_000,
  },
  /** While commits fail, the database is probed this often; work resumes on the first answer. */
  recordingProbeIntervalMs: 1000,
  /** The per-endpoint rate limit (ADR 0028). */
  rateLimit: {
    /**
     * A query takes a tenth of the limit's tokens: about ten queries per second per limited
     * endpoint and engine at most, while tokens one engine took and cannot spend in time (they
     * lapse with their second) stay a tenth of what the others could have sent.
     */
    batchShare: 10,
    /**
     * A refused delivery waits for the window that can take it, at most this long: a backlog is
     * claimed about once a minute instead of every second, and a raised limit is felt within it.
     */
    maxPutOffMs: 60_000,
    /** A put-off is due this much after the window's end, as the engine sees it early by a query's latency. */
    nextWindowMarginMs: 20,
    /** How often an engine delivering to limited endpoints deletes old windows. */
    sweepIntervalMs: 10_000,
    /** Ended windows are kept this long: nothing reads them, they only help looking into the table. */
    keepWindowsMs: 10_000,
  },
  operationalEvents: {
    /**
     * How often the outbox is read when it was found empty (ADR 0030): an operational event is
     * published within this of its commit; the read is an index probe of a nearly empty table.
     */
    intervalMs: 250,
    /** Outbox rows claimed per transaction; a full batch is followed by the next at once. */
    batchSize: 100,
    /** A row whose publish failed waits this long, doubled at each failure up to the maximum. */
    firstRetryMs: 1000,
    maxRetryMs: 60_000,
    /** How often `svc_delivery_operational_outbox_backlog` is sampled (a count of the outbox). */
    backlogSampleMs: 5000,
  },
  /**
   * How long a tenant's endpoints are trusted without a change notice (notices can be missed):
   * the longest a deleted endpoint may still receive when a notice is lost.
   */
  directoryTtlMs: 30_000,
} as const;

export type RecorderTuning = typeof ENGINE_TUNING.recorder;
