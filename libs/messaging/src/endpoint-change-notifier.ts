import { Injectable, Logger } from '@nestjs/common';
import { SubjectScheme } from '@svc/contracts';
import { withTimeout } from '@svc/http';
import { NatsConnectionManager } from './nats-connection';

const FLUSH_TIMEOUT_MS = 1000;

/**
 * Tells every delivery engine that a tenant's endpoints changed (core NATS, no persistence
 * needed): the engines drop what they cached, so a deleted or changed endpoint stops receiving
 * at once. The announcement is flushed before the API answers. If NATS is away, the change still
 * stands; the engines' cache expiry then bounds how long they use the old endpoint.
 */
@Injectable()
export class EndpointChangeNotifier {
  private readonly logger = new Logger('EndpointChangeNotifier');

  constructor(
    private readonly nats: NatsConnectionManager,
    private readonly subjects: SubjectScheme,
  ) {}

  async announce(tenantId: string, endpointId: string): Promise<void> {
    try {
      const connection = this.nats.current;
      connection.publish(
        this.subjects.endpointChanged,
        JSON.stringify({ tenant_id: tenantId, endpoint_id: endpointId }),
      );
      await withTimeout(connection.flush(), FLUSH_TIMEOUT_MS, 'NATS');
    } catch (error) {
      this.logger.warn(
        `could not announce the change of ${endpointId}: ${(error as Error).message}`,
      );
    }
  }
}
