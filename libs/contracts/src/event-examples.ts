import type { EventEnvelope } from './event-envelope';
import type { EventType } from './event-types';

/** One tenant and one endpoint for every example, so that they read as one story. */
const TENANT_ID = 'ten_01kjme9m3c6z0t4w8y1b5d7f9h';
const ENDPOINT = {
  endpoint_id: 'wh_01kjm8x2qf4n7r0t3v6y9b2d5g',
  url: 'https://hooks.example.com/svc',
  environment: 'live',
};

const envelope = (
  type: EventType,
  id: string,
  createdAt: string,
  data: Record<string, unknown>,
): EventEnvelope => ({ id, type, created_at: createdAt, tenant_id: TENANT_ID, data });

const ALERT = {
  alert_id: 'alt_01kjmeaqegn5w1h1bht79gvjwp',
  title: 'Impossible travel: sign-ins from Lisbon and Singapore 12 minutes apart',
  source: 'identity-protection',
  detected_at: '2026-03-01T10:14:58.000Z',
};
const INCIDENT = {
  incident_id: 'inc_01kjmeb07r6mtzvrd3xw2rh4ym',
  title: 'Compromised account: j.doe@example.com',
  alert_ids: [ALERT.alert_id, 'alt_01kjmeardrdtqn82xn796pr7pj'],
  opened_at: '2026-03-01T10:25:30.000Z',
};
const CHECK = {
  check_id: 'chk_01kjmeb540aab1ns2bhxc3gb9a',
  framework: 'SOC 2',
  control: 'CC6.1',
  evaluated_at: '2026-03-01T11:00:00.000Z',
};
const DELIVERY_ID = 'del_01kjmeaqegn5w1h1bht79gvjwp';

/**
 * An example of each type of the catalogue, as a receiver gets it: the whole envelope (spec 2.2)
 * with `data` as the type's schema describes it. `GET /v1/event-types` shows them; the unit test
 * checks each against the envelope schema and its type's data schema.
 */
export const EVENT_EXAMPLES: Readonly<Record<EventType, EventEnvelope>> = {
  'alert.created': envelope(
    'alert.created',
    'evt_01kjmeasd0v72xt2ep5cffe34r',
    '2026-03-01T10:15:30.000Z',
    { ...ALERT, severity: 'high', status: 'open' },
  ),
  'alert.severity_changed': envelope(
    'alert.severity_changed',
    'evt_01kjmeatc8yjcd4g74vmqk010f',
    '2026-03-01T10:18:02.000Z',
    { ...ALERT, severity: 'critical', status: 'open' },
  ),
  'alert.acknowledged': envelope(
    'alert.acknowledged',
    'evt_01kjmeavbgdgqn3bfr5gghrfpp',
    '2026-03-01T10:20:41.000Z',
    { ...ALERT, severity: 'critical', status: 'acknowledged' },
  ),
  'alert.escalated': envelope(
    'alert.escalated',
    'evt_01kjmeawarmwktg5m5kqre2zta',
    '2026-03-01T10:24:10.000Z',
    { ...ALERT, severity: 'critical', status: 'escalated' },
  ),
  'alert.closed': envelope(
    'alert.closed',
    'evt_01kjmeaxa0g1avsq0va0sxhtvr',
    '2026-03-01T13:02:17.000Z',
    {
      ...ALERT,
      severity: 'critical',
      status: 'closed',
    },
  ),
  'incident.created': envelope(
    'incident.created',
    'evt_01kjmeay98q6w9prbbnrj81j5e',
    '2026-03-01T10:25:30.000Z',
    { ...INCIDENT, severity: 'critical', status: 'open' },
  ),
  'incident.contained': envelope(
    'incident.contained',
    'evt_01kjmeaz8gfjh7k7hxzqcbt1b5',
    '2026-03-01T11:40:05.000Z',
    { ...INCIDENT, severity: 'critical', status: 'contained' },
  ),
  'incident.resolved': envelope(
    'incident.resolved',
    'evt_01kjmeb170dm93w2eswc47mz8k',
    '2026-03-01T16:12:44.000Z',
    { ...INCIDENT, severity: 'high', status: 'resolved' },
  ),
  'compliance.check_failed': envelope(
    'compliance.check_failed',
    'evt_01kjmeb268r06c2s77xvw0c5yf',
    '2026-03-01T11:00:03.000Z',
    { ...CHECK, status: 'failing' },
  ),
  'compliance.posture_changed': envelope(
    'compliance.posture_changed',
    'evt_01kjmeb35gfh9r55z6553w8cyn',
    '2026-03-01T12:00:02.000Z',
    { ...CHECK, status: 'passing', evaluated_at: '2026-03-01T12:00:00.000Z' },
  ),
  'webhook.endpoint.degraded': envelope(
    'webhook.endpoint.degraded',
    'evt_01kjmeb44rm68mxwt1grb2crnr',
    '2026-03-01T10:47:31.000Z',
    {
      ...ENDPOINT,
      reason: 'delivery_abandoned',
      delivery_id: DELIVERY_ID,
      at: '2026-03-01T10:47:31.000Z',
    },
  ),
  'webhook.endpoint.reactivated': envelope(
    'webhook.endpoint.reactivated',
    'evt_01kjmeb6385q8zeh7b51v2pdg7',
    '2026-03-01T11:05:12.000Z',
    {
      ...ENDPOINT,
      reason: 'delivery_succeeded',
      delivery_id: 'del_01kjmeb540aab1ns2bhxc3gb9a',
      at: '2026-03-01T11:05:12.000Z',
    },
  ),
  'webhook.endpoint.disabled': envelope(
    'webhook.endpoint.disabled',
    'evt_01kjmeb72g91cz8cg98brdnsbg',
    '2026-03-01T14:30:09.000Z',
    {
      ...ENDPOINT,
      reason: 'gone',
      delivery_id: 'del_01kjmeb81rvxzgmysgh9j7qqy5',
      status_code: 410,
      at: '2026-03-01T14:30:09.000Z',
    },
  ),
  'webhook.delivery.abandoned': envelope(
    'webhook.delivery.abandoned',
    'evt_01kjmeb910c9racnp39hrxxy35',
    '2026-03-01T10:47:31.000Z',
    {
      ...ENDPOINT,
      reason: 'attempts_exhausted',
      delivery_id: DELIVERY_ID,
      event_id: 'evt_01kjmeasd0v72xt2ep5cffe34r',
      event_type: 'alert.created',
      attempts: 5,
      status_code: 503,
      error_kind: 'http_status',
      at: '2026-03-01T10:47:31.000Z',
    },
  ),
  'webhook.test': envelope(
    'webhook.test',
    'evt_01kjmeba085a9622b13yde3z4p',
    '2026-03-01T09:58:00.000Z',
    {
      endpoint_id: ENDPOINT.endpoint_id,
      message:
        'A test event sent at your request with POST /v1/webhooks/{id}/test. Answer 2xx to acknowledge it; it is not retried.',
    },
  ),
};
