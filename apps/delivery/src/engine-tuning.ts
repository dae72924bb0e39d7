/**
 * Every tuning constant of the delivery engine, in one place. Configuration
 * (docs/configuration.md) sets what operators choose: timeouts, the retry schedule, concurrency bounds.
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
    /**
     * A message whose handling failed this many times in one engine, for another reason than the
     * database, is parked (`handling-failed`, issue 30): a failure that repeats on every delivery
     * is the message's, not the moment's. Five is about 20 s of retries: a passing fault of a
     * dependency other than the database has that long to pass.
     */
    maxFailedHandlings: 5,
    /**
     * Messages one pull asks for at most (never more than there is room for in hand, ADR 0032):
     * what an engine holds delivered but not in hand. Small, so that when a lane opens the main
     * intake has little of the hot tenant's left to handle before it reaches the others' events
     * (32 events of 10 deliveries are about 60 ms of a busy engine); large enough that pulls cost
     * little next to the work (one round trip per 32 messages).
     */
    pullBatch: 32,
    /**
     * While most of the last pull was skipped (a laned tenant's backlog, acknowledged unhandled at
     * once, taking no room), pulls ask for this many (at most half the consumer's max ack pending):
     * a busy engine's event loop answers a pull only every few tens of milliseconds, so passing
     * the backlog takes few round trips. What such a pull brings that is not skipped waits, kept
     * in progress, until there is room for it.
     */
    skipPullBatch: 1000,
    /** A pull waits this long on the server when nothing is there, then the next one is sent. */
    pullExpiresMs: 10_000,
    /** After a pull failed (NATS away, a lane's consumer deleted), the next one waits this long. */
    retryFailedPullMs: 1000,
    /**
     * Who an intake is busy with is judged over the tenants of its last this many messages: a
     * few hundred milliseconds of a busy engine, so a burst shows at once and passes soon.
     */
    tenantWindow: 64,
    /**
     * Messages whose fan-out (the stored-body check of ADR 0016 and the tenant's endpoints, each
     * a read when not cached) runs at once: one message waiting for the database does not hold up
     * the next, nor the main intake passing over a laned tenant's messages (ADR 0032). The
     * deliveries of these few may go past the intake's delivery bound; they then wait for global
     * slots like any other.
     */
    maxFanningOut: 8,
    /**
     * One tenant's messages fanning out at once (their claims queued, ADR 0050): half of
     * `maxFanningOut`, so that a bursting tenant's claims never take every fan-out of the intake
     * and another tenant's message is taken at once, to share the next claim statement.
     */
    maxFanningOutPerTenant: 4,
    /**
     * While this many of one tenant's deliveries wait for their endpoint's slot, its next message
     * waits too: about what a hot endpoint's eight connections take in one round, so its slots
     * never run dry and nobody waits past the busy delay.
     */
    maxSlotWaitsPerTenant: 8,
    /** How often a lane yielding to a main intake that is behind looks again (ADR 0032). */
    yieldPollMs: 5,
  },
  /** Hot-tenant lanes (ADR 0032); INTAKE_LANES_MAX and the shares are configuration. */
  lanes: {
    /**
     * How often the main intake is looked at (in memory). A tenant bursting into an idle engine
     * gets its lane within about two intervals, before many of the others' events are behind it.
     */
    planIntervalMs: 100,
    /**
     * The main consumer's backlog (a request to JetStream) is read at most this often, and only
     * while one tenant crowds the intake.
     */
    backlogReadIntervalMs: 250,
    /**
     * Messages the main intake must have taken lately before one tenant can be hot: a tenant is
     * judged on a sample, not on the one message that happened to be slow.
     */
    minRecentMessages: 8,
    /**
     * The main intake must have been busy with what it holds (not waiting for messages) this
     * much of an interval: below it, the engine keeps up, and nobody waits long behind anyone.
     */
    minSaturation: 0.5,
    /**
     * Messages waiting for the main intake or in its hands for a lane to be opened: the handling
     * of fifty events (tens to a hundred milliseconds) is about what another tenant would wait.
     */
    minBacklog: 50,
    /**
     * A tenant gets a lane only if another tenant's message was taken within this long: alone on
     * the engines it crowds nobody out (a single-tenant deployment, a benchmark), and a lane's
     * closing costs a second look at each of its messages. An hour, so that a tenant that
     * publishes a few alerts an hour still counts as someone waiting.
     */
    otherTenantWithinMs: 60 * 60 * 1000,
    /**
     * The registry is read this often (and at once on a notice from another engine), and the
     * lanes' consumers looked at (backlog, messages in hand) for closing and deleting them.
     */
    checkIntervalMs: 1000,
    /**
     * The main intake skips laned messages only with a registry read this recent: well above
     * the reading interval (a few failed reads pass), well below the closing grace period.
     */
    maxViewAgeMs: 10_000,
    /**
     * While the main intake is further behind the stream than this (it still passes over a laned
     * tenant's messages, or its own work is late), lanes take no new message: the engine's CPU
     * goes to every other tenant's events first. Passing over a message costs a small fraction of
     * handling one, so the hot tenant loses little.
     */
    mainLagLimitMs: 50,
    /** A lane without a backlog for this long closes: its tenant's events are taken as they come. */
    quietMs: 10_000,
    /**
     * A closing lane handles its messages for at least this long before it may be deleted:
     * longer than the view age above, so every engine skipping on an old view has stopped.
     */
    closingGraceMs: 30_000,
    /**
     * A closing lane puts a message after its end back for this long the first time: the main
     * intake handles it meanwhile, and the lane finds it handled (no second POST) when it comes
     * back; if an engine that had not learned of the end skipped it, the lane delivers it then.
     */
    putBackMs: 5000,
    /**
     * A message the main intake puts back comes back after this: one of a tenant whose lane is
     * being opened (a few milliseconds), or a laned tenant's from before its lane while the tenant
     * holds its share already (its deliveries in hand have finished by then); the main intake's
     * room goes to the other tenants meanwhile.
     */
    mainPutBackMs: 250,
    /** How often lane consumers without a registry row (an engine stopped mid-close) are deleted. */
    sweepIntervalMs: 30_000,
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
    /**
     * How long the first record of a batch waits for company (ADR 0033). The POST has been
     * answered by then: the receiver does not wait for it, only the record's durability (the
     * message's ack, the attempt in the API) does. At 200 events/s, 25 ms against 2 ms made 0.17
     * commits per delivery instead of 0.9, and cut PostgreSQL's CPU per delivery by 40 %.
     */
    lingerMs: 25,
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

/** The engine's tuning as a type: tests and benchmarks build engines with variations of it. */
export type EngineTuning = typeof ENGINE_TUNING;
