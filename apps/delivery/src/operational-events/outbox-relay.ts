import { Logger } from '@nestjs/common';
import type { JetStreamClient } from '@nats-io/jetstream';
import { SubjectScheme } from '@svc/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryMetrics } from '../delivery-metrics';
import {
  endpointAsOf,
  endpointIdOf,
  OperationalEvent,
  operationalEventOf,
  OutboxEntry,
  PositionedEndpointEvent,
} from './operational-event';

/** Puts one operational event on JetStream; resolves once JetStream has stored it. */
export type PublishOperationalEvent = (event: OperationalEvent) => Promise<void>;

/**
 * Publishes on `<root>.ops.<tenant_id>.<type>` with `Nats-Msg-Id` = the event's id, which is
 * derived from the log: a republish within the stream's duplicate window is dropped by JetStream.
 */
export function publishToJetStream(
  js: JetStreamClient,
  subjects: SubjectScheme,
): PublishOperationalEvent {
  return async (event) => {
    await js.publish(subjects.operational(event.tenant_id, event.type), JSON.stringify(event), {
      msgID: event.id,
    });
  };
}

/** ENGINE_TUNING.operationalEvents says why each has its value. */
export interface RelayOptions {
  intervalMs: number;
  batchSize: number;
  firstRetryMs: number;
  maxRetryMs: number;
  backlogSampleMs: number;
}

/** What one turn of the relay did. */
export interface RelayTurn {
  claimed: number;
  published: number;
  /** Rows that raise no event (the loop guard) or cannot be told (no endpoint): deleted. */
  skipped: number;
  /** A publish that failed: its row waits, and the rest of the batch is left for the next turn. */
  failed: boolean;
}

interface OutboxRow {
  stream_id: string;
  version: number;
  position: string;
  type: string;
  data: object;
  recorded_at: Date;
  failures: number;
}

/**
 * The outbox relay (ADR 0030): publishes the operational events that the log's trigger put in
 * `operational_events_outbox`, in the order of the log, and deletes each row once JetStream has
 * acknowledged its event. Rows are claimed with FOR UPDATE SKIP LOCKED inside the transaction that
 * deletes them, so every engine replica runs a relay and none publishes a row another holds; a
 * relay that dies mid-batch leaves its rows to the next (its transaction rolls back), which
 * publishes them again under the same ids: at least once, duplicates dropped by id.
 */
export class OperationalEventsRelay {
  private readonly logger = new Logger('OperationalEventsRelay');
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private lastBacklogSample = 0;
  private failing = false;

  constructor(
    private readonly deps: { dataSource: DataSource; metrics: DeliveryMetrics },
    private readonly options: RelayOptions,
  ) {}

  start(publish: PublishOperationalEvent): void {
    this.loop ??= this.run(publish);
  }

  /** Stops after the turn in progress; rows it has not published stay for the next relay. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async run(publish: PublishOperationalEvent): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let more = false;
      try {
        // Most turns find nothing due: one autocommitted probe answers that, where a claiming
        // turn is a transaction of three round trips, four times a second on every engine.
        if (await this.hasDueRows()) {
          const turn = await this.relayOnce(publish);
          more = turn.claimed === this.options.batchSize && !turn.failed;
        }
        await this.sampleBacklog();
        if (this.failing) {
          this.logger.log('publishing operational events again');
          this.failing = false;
        }
      } catch (error) {
        // The database is away: said once, not at every turn.
        if (!this.failing) {
          this.logger.warn(`cannot read the outbox: ${(error as Error).message}; retrying`);
          this.failing = true;
        }
      }
      if (!more) {
        await sleep(this.options.intervalMs, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  /**
   * Whether a row is due (its publish time come). A row another relay holds counts too: the claim
   * that follows skips it, and finds nothing.
   */
  async hasDueRows(): Promise<boolean> {
    const [{ due }]: { due: boolean }[] = await this.deps.dataSource.query(
      'SELECT EXISTS (SELECT 1 FROM operational_events_outbox WHERE publish_after <= now()) AS due',
    );
    return due;
  }

  /** One batch: claim, publish in log order, delete what was published, back off a failure. */
  async relayOnce(publish: PublishOperationalEvent): Promise<RelayTurn> {
    return this.deps.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT stream_id, version, position::text AS position, type, data, recorded_at, failures
           FROM operational_events_outbox
          WHERE publish_after <= now()
          ORDER BY position
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize],
      );
      const turn: RelayTurn = { claimed: rows.length, published: 0, skipped: 0, failed: false };
      if (rows.length === 0) {
        return turn;
      }
      const entries = rows.map(entryOf);
      const histories = await endpointHistories(manager, entries.map(endpointIdOf));
      const done: OutboxEntry[] = [];
      for (const [index, entry] of entries.entries()) {
        const endpoint = endpointAsOf(histories.get(endpointIdOf(entry)) ?? [], entry.position);
        if (!endpoint) {
          // Not expected: every endpoint's stream is kept for good (ADR 0023).
          this.logger.error(
            `${entry.type} ${entry.streamId}/${entry.version}: no registration of ${endpointIdOf(entry)} in the log; no operational event is raised`,
          );
        }
        const event = endpoint ? operationalEventOf(entry, endpoint) : null;
        if (!event) {
          turn.skipped += 1;
          done.push(entry);
          continue;
        }
        try {
          await publish(event);
        } catch (error) {
          const failures = rows[index].failures + 1;
          const waitMs = Math.min(
            this.options.maxRetryMs,
            this.options.firstRetryMs * 2 ** (failures - 1),
          );
          this.logger.warn(
            `cannot publish ${event.type} ${event.id} (failure ${failures}; next try in ${waitMs} ms): ${(error as Error).message}`,
          );
          await manager.query(
            `UPDATE operational_events_outbox
                SET failures = $3, publish_after = now() + $4 * interval '1 millisecond'
              WHERE stream_id = $1 AND version = $2`,
            [entry.streamId, entry.version, failures, waitMs],
          );
          turn.failed = true;
          break;
        }
        this.deps.metrics.operationalEventsPublished.inc({ type: event.type });
        turn.published += 1;
        done.push(entry);
      }
      if (done.length > 0) {
        await manager.query(
          `DELETE FROM operational_events_outbox
            WHERE (stream_id, version) IN (SELECT * FROM unnest($1::text[], $2::int[]))`,
          [done.map((entry) => entry.streamId), done.map((entry) => entry.version)],
        );
      }
      return turn;
    });
  }

  private async sampleBacklog(): Promise<void> {
    if (Date.now() - this.lastBacklogSample < this.options.backlogSampleMs) {
      return;
    }
    this.lastBacklogSample = Date.now();
    const [{ count }]: { count: number }[] = await this.deps.dataSource.query(
      'SELECT count(*)::int AS count FROM operational_events_outbox',
    );
    this.deps.metrics.operationalOutboxBacklog.set(count);
  }
}

/** The row as the event it copies; the trigger copies only the types OutboxEntry names. */
function entryOf(row: OutboxRow): OutboxEntry {
  return {
    type: row.type,
    data: row.data,
    streamId: row.stream_id,
    version: row.version,
    position: row.position,
    recordedAt: row.recorded_at,
  } as OutboxEntry;
}

/** The streams of the endpoints, in version order; endpoint streams are kept (`-infinity`). */
async function endpointHistories(
  manager: EntityManager,
  endpointIds: string[],
): Promise<Map<string, PositionedEndpointEvent[]>> {
  const rows: {
    stream_id: string;
    version: number;
    position: string;
    type: string;
    data: object;
  }[] = await manager.query(
    `SELECT stream_id, version, position::text AS position, type, data
       FROM events
      WHERE stream_id = ANY($1::text[]) AND retention_key = '-infinity'
      ORDER BY stream_id, version`,
    [[...new Set(endpointIds)]],
  );
  const histories = new Map<string, PositionedEndpointEvent[]>();
  for (const row of rows) {
    const history = histories.get(row.stream_id) ?? [];
    history.push({
      type: row.type,
      data: row.data,
      version: row.version,
      position: row.position,
    } as PositionedEndpointEvent);
    histories.set(row.stream_id, history);
  }
  return histories;
}
