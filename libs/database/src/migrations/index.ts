import { Foundation1763740000000 } from './1763740000000-foundation';
import { Deliveries1763760000000 } from './1763760000000-deliveries';
import { UsersAndClients1763780000000 } from './1763780000000-users-and-clients';
import { OAuthGrants1763800000000 } from './1763800000000-oauth-grants';
import { EventIdentityPerTenant1763820000000 } from './1763820000000-event-identity-per-tenant';
import { EndpointEnvironments1763840000000 } from './1763840000000-endpoint-environments';
import { DeliveryDataPartitions1763860000000 } from './1763860000000-delivery-data-partitions';
import { EndpointManners1764000000000 } from './1764000000000-endpoint-manners';
import { OperationalEventsOutbox1764000100000 } from './1764000100000-operational-events-outbox';
import { DeliveriesByEndpointAndTime1764000200000 } from './1764000200000-deliveries-by-endpoint-and-time';
import { EndpointRateWindows1764000300000 } from './1764000300000-endpoint-rate-windows';
import { IntakeLanes1764000500000 } from './1764000500000-intake-lanes';
import { OpenIntakeLaneFunction1764000600000 } from './1764000600000-open-intake-lane-function';
import { AttemptsByEndpointAndTime1764000750000 } from './1764000750000-attempts-by-endpoint-and-time';
import { PortalSessions1764000800000 } from './1764000800000-portal-sessions';
import { UndeliveredDeliveries1764000850000 } from './1764000850000-undelivered-deliveries';
import { WebhookSigningKeys1764000900000 } from './1764000900000-webhook-signing-keys';
import { EndpointSignatureSchemes1764000950000 } from './1764000950000-endpoint-signature-schemes';
import { DeliverySequenceNumbers1765000000000 } from './1765000000000-delivery-sequence-numbers';
import { EndpointOrdering1765000100000 } from './1765000100000-endpoint-ordering';
import { OrderedDeliveries1765000200000 } from './1765000200000-ordered-deliveries';
import { EndpointFilters1765000300000 } from './1765000300000-endpoint-filters';
import { AuditTrailIndex1765000400000 } from './1765000400000-audit-trail-index';
import { EndpointReceiverAuth1765000500000 } from './1765000500000-endpoint-receiver-auth';

/** Every migration in order. The schema comes from these only; `synchronize` stays off. */
export const MIGRATIONS = [
  Foundation1763740000000,
  Deliveries1763760000000,
  UsersAndClients1763780000000,
  OAuthGrants1763800000000,
  EventIdentityPerTenant1763820000000,
  EndpointEnvironments1763840000000,
  DeliveryDataPartitions1763860000000,
  EndpointManners1764000000000,
  OperationalEventsOutbox1764000100000,
  DeliveriesByEndpointAndTime1764000200000,
  EndpointRateWindows1764000300000,
  IntakeLanes1764000500000,
  OpenIntakeLaneFunction1764000600000,
  AttemptsByEndpointAndTime1764000750000,
  PortalSessions1764000800000,
  UndeliveredDeliveries1764000850000,
  WebhookSigningKeys1764000900000,
  EndpointSignatureSchemes1764000950000,
  DeliverySequenceNumbers1765000000000,
  EndpointOrdering1765000100000,
  OrderedDeliveries1765000200000,
  EndpointFilters1765000300000,
  AuditTrailIndex1765000400000,
  EndpointReceiverAuth1765000500000,
];

/** The audit trail's query must name exactly these types to be served by events_audit_idx. */
export { AUDIT_TRAIL_INDEXED_TYPES } from './1765000400000-audit-trail-index';

export const MIGRATIONS_TABLE = 'schema_migrations';
