import type { ReceiverAuthView } from '@svc/webhook-endpoints';

/** The fields of the API's endpoint answer that `svc webhooks` prints. */
export interface EndpointAnswer {
  id: string;
  url: string;
  events: string[];
  status: string;
  ordering?: string;
  auth: ReceiverAuthView | null;
  retry_schedule: string[] | null;
  timeout_seconds: number | null;
}

const NOT_SHOWN = 'stored encrypted, never shown';

/** The endpoint's `auth` as a person reads it: the type and what is not secret. */
export function describeAuth(auth: ReceiverAuthView | null, now = new Date()): string {
  if (auth === null) {
    return 'none (deliveries carry only their signatures)';
  }
  switch (auth.type) {
    case 'headers':
      return `headers ${auth.header_names.join(', ')} (values ${NOT_SHOWN})`;
    case 'basic':
      return `HTTP Basic as ${auth.username} (password ${NOT_SHOWN})`;
    case 'oauth2_client_credentials':
      return [
        `OAuth 2.0 client credentials: client ${auth.client_id}, token from ${auth.token_url}`,
        ...(auth.scope === null ? [] : [`scope ${auth.scope}`]),
        ...(auth.audience === null ? [] : [`audience ${auth.audience}`]),
      ]
        .join(', ')
        .concat(` (client secret ${NOT_SHOWN})`);
    case 'mtls': {
      const expired = Date.parse(auth.not_after) <= now.getTime();
      return (
        `mutual TLS with the client certificate ${auth.subject}, issued by ${auth.issuer}, ` +
        `${expired ? 'EXPIRED' : 'expires'} ${auth.not_after}, SHA-256 ${auth.fingerprint_sha256} ` +
        `(private key ${NOT_SHOWN})`
      );
    }
    default: {
      // A type this CLI does not know yet: what the API shows, as it shows it.
      const { type, ...rest } = auth as { type: string };
      return `${type} ${JSON.stringify(rest)}`;
    }
  }
}

/** The endpoint's own retry delays, or the deployment's. */
export function describeRetrySchedule(schedule: string[] | null): string {
  return schedule === null
    ? "default (the deployment's)"
    : `${schedule.join(', ')} (${schedule.length + 1} attempts at most)`;
}

/** The endpoint's own attempt timeout, or the deployment's. */
export function describeTimeout(seconds: number | null): string {
  return seconds === null ? "default (the deployment's)" : `${seconds} s`;
}

/** `svc webhooks show`: one labelled line per field. */
export function describeEndpoint(endpoint: EndpointAnswer, now = new Date()): string[] {
  return [
    `endpoint        ${endpoint.id}`,
    `url             ${endpoint.url}`,
    `events          ${endpoint.events.join(', ')}`,
    `status          ${endpoint.status}`,
    `ordering        ${endpoint.ordering ?? 'unordered'}`,
    `auth            ${describeAuth(endpoint.auth, now)}`,
    `retry schedule  ${describeRetrySchedule(endpoint.retry_schedule)}`,
    `timeout         ${describeTimeout(endpoint.timeout_seconds)}`,
  ];
}
