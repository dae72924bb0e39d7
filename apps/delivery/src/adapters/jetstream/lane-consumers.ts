import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { DeliveryAppConfig } from '@svc/config';
import { desiredLaneConsumer, laneConsumerPrefix } from '@svc/messaging';
import type { LaneConsumers } from '../../intake/lanes/lane-ports';
import type { Lane, LaneProgress } from '../../intake/lanes/lane-rules';

/** The lanes' consumers on JetStream (ADR 0032), and what the lanes read of the main consumer. */
export class JetStreamLaneConsumers implements LaneConsumers {
  constructor(
    private readonly jsm: JetStreamManager,
    private readonly settings: DeliveryAppConfig['jetstream'],
  ) {}

  async mainConsumer(): Promise<{ pending: number; deliveredStreamSeq: number }> {
    const { eventsStream, consumer } = this.settings;
    const info = await this.jsm.consumers.info(eventsStream, consumer);
    return { pending: info.num_pending, deliveredStreamSeq: info.delivered.stream_seq };
  }

  async lastStreamSeq(): Promise<number> {
    const { state } = await this.jsm.streams.info(this.settings.eventsStream);
    return state.last_seq;
  }

  consumerNameFor(tenantId: string, startSeq: number): string {
    return desiredLaneConsumer(this.settings, tenantId, startSeq).durable_name;
  }

  async progress(consumerName: string): Promise<LaneProgress | null> {
    try {
      const info = await this.jsm.consumers.info(this.settings.eventsStream, consumerName);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    } catch (error) {
      if (isConsumerNotFound(error)) {
        return null;
      }
      throw error;
    }
  }

  /**
   * The engine that opened the lane creates its consumer right after the row; any engine that
   * finds the row without it (the opener stopped in between) creates it from the row, which
   * names it and where it starts.
   */
  async ensure(lane: Lane): Promise<void> {
    if (await this.progress(lane.consumerName)) {
      return;
    }
    await this.jsm.consumers.add(this.settings.eventsStream, {
      ...desiredLaneConsumer(this.settings, lane.tenantId, lane.startSeq),
      durable_name: lane.consumerName,
    });
  }

  async remove(consumerName: string): Promise<void> {
    try {
      await this.jsm.consumers.delete(this.settings.eventsStream, consumerName);
    } catch (error) {
      if (!isConsumerNotFound(error)) {
        throw error;
      }
    }
  }

  async laneConsumerNames(): Promise<string[]> {
    const prefix = laneConsumerPrefix(this.settings);
    const names: string[] = [];
    for await (const info of this.jsm.consumers.list(this.settings.eventsStream)) {
      if (info.name.startsWith(prefix)) {
        names.push(info.name);
      }
    }
    return names;
  }
}

function isConsumerNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}
