import type { NatsConnection } from '@nats-io/nats-core';
import type { SubjectScheme } from '@svc/contracts';
import { Logger } from '@nestjs/common';
import type { LaneNotices } from '../../intake/lanes/lane-ports';

/** The core NATS subject of lane-change notices, under the deployment's root. */
export function laneChangedSubject(subjects: SubjectScheme): string {
  return `${subjects.root}.control.intake-lanes.changed`;
}

/** Lane changes told to every engine on core NATS (ADR 0032). */
export class NatsLaneNotices implements LaneNotices {
  private readonly logger = new Logger('LaneNotices');

  constructor(
    private readonly connection: NatsConnection,
    private readonly subjects: SubjectScheme,
  ) {}

  announce(tenantId: string): void {
    try {
      this.connection.publish(
        laneChangedSubject(this.subjects),
        JSON.stringify({ tenant_id: tenantId }),
      );
    } catch (error) {
      this.logger.warn(`could not announce a lane change: ${(error as Error).message}`);
    }
  }

  follow(changed: () => void): () => void {
    let following = true;
    const subscription = this.connection.subscribe(laneChangedSubject(this.subjects), {
      callback: (error) => {
        if (!error) {
          changed();
        }
      },
    });
    void (async () => {
      for await (const status of this.connection.status()) {
        if (!following) {
          break;
        }
        if (status.type === 'reconnect') {
          // Notices sent while disconnected are lost.
          changed();
        }
      }
    })();
    return () => {
      following = false;
      subscription.unsubscribe();
    };
  }
}
