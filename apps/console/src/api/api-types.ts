import type { components } from './schema';

/** Short names for the API's schemas the pages use (from the generated schema.ts). */
type Schemas = components['schemas'];

export type Endpoint = Schemas['WebhookEndpointResponse'];
export type Attempt = Schemas['AttemptResponse'];
export type Delivery = Schemas['DeliveryResponse'];
export type UndeliveredDelivery = Schemas['UndeliveredDelivery'];
export type EventType = Schemas['EventTypeResponse'];
export type EndpointStats = Schemas['EndpointStatsResponse'];
export type StatsBucket = Schemas['StatsBucket'];
export type EndpointStatus = Endpoint['status'];
export type EventSubscription = Schemas['RegisterWebhookRequest']['events'][number];
export type SignatureScheme = Endpoint['signature_schemes'][number];
export type EndpointOrdering = Endpoint['ordering'];
/** What an answer shows of the receiver authentication (ADR 0048): never a secret; null for none. */
export type ReceiverAuthView = NonNullable<Endpoint['auth']>;
export type ReceiverAuthType = ReceiverAuthView['type'];
/** The receiver authentication a PATCH sets, secrets included; null removes it. */
export type ReceiverAuthRequest = NonNullable<Schemas['UpdateWebhookRequest']['auth']>;
