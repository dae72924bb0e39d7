import { z } from 'zod';
import { duration, integer, list, objectName, optionalText, setting } from '../kinds';
import { section } from '../section';

/**
 * Where NATS is and how to authenticate: at most one of a credentials file (JWT and NKey, the
 * decentralised auth of an operator-mode server), an NKey seed file, a user and password, or a
 * token; TLS with the CA to trust and optionally a client certificate (libs/messaging builds the
 * @nats-io connect options from this: natsConnectOptions).
 */
export interface NatsSettings {
  servers: string[];
  credsFile?: string;
  nkeySeedFile?: string;
  user?: string;
  password?: string;
  token?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

export interface JetStreamSettings {
  /** Root of every subject: `<root>.events.<tenant_id>.<type>`. */
  subjectRoot: string;
  eventsStream: string;
  replicas: number;
  /**
   * Replicas of the engines' durable consumers (delivery, operational events, hot tenants'
   * lanes); 0 or absent: JetStream's default, as many as their stream.
   */
  consumerReplicas?: number;
  maxAgeMs: number;
  deadLetterStream: string;
  consumer: string;
  ackWaitMs: number;
  maxAckPending: number;
}

const file = (meaning: string) => setting(optionalText('file path'), meaning);

type NatsOption =
  | 'NATS_CREDS_FILE'
  | 'NATS_NKEY_SEED_FILE'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_TOKEN'
  | 'NATS_TLS_CA_FILE'
  | 'NATS_TLS_CERT_FILE'
  | 'NATS_TLS_KEY_FILE';
type NatsValues = { NATS_URL: string[] } & { [K in NatsOption]?: string };

function natsProblems(values: NatsValues): string[] {
  const methods = [
    values.NATS_CREDS_FILE && 'NATS_CREDS_FILE',
    values.NATS_NKEY_SEED_FILE && 'NATS_NKEY_SEED_FILE',
    (values.NATS_USER || values.NATS_PASSWORD) && 'NATS_USER/NATS_PASSWORD',
    values.NATS_TOKEN && 'NATS_TOKEN',
  ].filter((method): method is string => Boolean(method));
  const problems: string[] = [];
  if (methods.length > 1) {
    problems.push(`NATS_*: choose one way to authenticate, not ${methods.join(' and ')}`);
  }
  if (Boolean(values.NATS_USER) !== Boolean(values.NATS_PASSWORD)) {
    problems.push('NATS_USER, NATS_PASSWORD: give both or neither');
  }
  if (Boolean(values.NATS_TLS_CERT_FILE) !== Boolean(values.NATS_TLS_KEY_FILE)) {
    problems.push('NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE: a client certificate needs its key');
  }
  return problems;
}

function natsSettings(values: NatsValues): NatsSettings {
  const tls =
    values.NATS_TLS_CA_FILE || values.NATS_TLS_CERT_FILE
      ? {
          ...(values.NATS_TLS_CA_FILE ? { caFile: values.NATS_TLS_CA_FILE } : {}),
          ...(values.NATS_TLS_CERT_FILE
            ? { certFile: values.NATS_TLS_CERT_FILE, keyFile: values.NATS_TLS_KEY_FILE }
            : {}),
        }
      : undefined;
  return {
    servers: values.NATS_URL,
    ...(values.NATS_CREDS_FILE ? { credsFile: values.NATS_CREDS_FILE } : {}),
    ...(values.NATS_NKEY_SEED_FILE ? { nkeySeedFile: values.NATS_NKEY_SEED_FILE } : {}),
    ...(values.NATS_USER ? { user: values.NATS_USER, password: values.NATS_PASSWORD } : {}),
    ...(values.NATS_TOKEN ? { token: values.NATS_TOKEN } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** The connection to NATS (ADR 0020). */
export const nats = section({
  name: 'NATS',
  variables: {
    NATS_URL: setting(
      list(['nats://127.0.0.1:4222'], 'URLs, comma-separated'),
      'NATS servers to connect to',
    ),
    NATS_CREDS_FILE: file('credentials file (JWT and NKey) of an operator-mode server'),
    NATS_NKEY_SEED_FILE: file('NKey seed file'),
    NATS_USER: setting(optionalText(), 'user name (with `NATS_PASSWORD`)'),
    NATS_PASSWORD: setting(optionalText(), 'password (with `NATS_USER`)'),
    NATS_TOKEN: setting(optionalText(), 'authentication token'),
    NATS_TLS_CA_FILE: file('NATS over TLS: PEM file of the CA to trust'),
    NATS_TLS_CERT_FILE: file('NATS over TLS: client certificate (with `NATS_TLS_KEY_FILE`)'),
    NATS_TLS_KEY_FILE: file("NATS over TLS: the client certificate's key"),
  },
  check: natsProblems,
  build: (values): { nats: NatsSettings } => ({ nats: natsSettings(values) }),
});

/** The root of the deployment's subjects: every app publishes or subscribes under it. */
export const subjects = section({
  name: 'subjects',
  variables: {
    NATS_SUBJECT_ROOT: setting(
      {
        schema: z
          .string()
          .regex(
            /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
            'must be NATS subject tokens such as svc or staging.svc',
          )
          .default('svc'),
        default: '`svc`',
        format: 'subject tokens such as `svc` or `staging.svc`',
      },
      'root of every subject: `<root>.events.<tenant_id>.<type>`',
    ),
  },
  build: (values): { jetstream: Pick<JetStreamSettings, 'subjectRoot'> } => ({
    jetstream: { subjectRoot: values.NATS_SUBJECT_ROOT },
  }),
});

/** The streams and the durable consumer of the delivery engines (ADR 0010). */
export const jetstream = section({
  name: 'JetStream',
  variables: {
    EVENTS_STREAM: setting(objectName('SVC_EVENTS'), 'the events stream'),
    EVENTS_STREAM_REPLICAS: setting(
      integer(1, 1, 5),
      'replicas of the events, dead-letter and operational-events streams: 1 on a lone server; in a cluster at most its JetStream servers (the engine otherwise does not start: not ready, saying why)',
    ),
    EVENTS_STREAM_MAX_AGE: setting(duration('7d'), 'how long the events stream keeps an event'),
    DEAD_LETTER_STREAM: setting(objectName('SVC_DEAD_LETTER'), 'the stream of parked messages'),
    DELIVERY_CONSUMER: setting(
      objectName('svc-delivery'),
      'the durable consumer the engines share',
    ),
    DELIVERY_CONSUMER_ACK_WAIT: setting(
      duration('60s'),
      'after this, a message an engine took but did not acknowledge goes to another',
    ),
    DELIVERY_CONSUMER_MAX_ACK_PENDING: setting(
      integer(2000, 1, 100_000),
      'messages handed out and not yet acknowledged, across engines',
    ),
    DELIVERY_CONSUMER_REPLICAS: setting(
      integer(0, 0, 5),
      "replicas of the engines' durable consumers (delivery, operational events, lanes): `0`, as many as their stream (JetStream's default); at most `EVENTS_STREAM_REPLICAS`",
    ),
  },
  // JetStream refuses a consumer with more replicas than its stream.
  check: (values) =>
    values.DELIVERY_CONSUMER_REPLICAS > values.EVENTS_STREAM_REPLICAS
      ? [
          `DELIVERY_CONSUMER_REPLICAS: ${values.DELIVERY_CONSUMER_REPLICAS} is more than EVENTS_STREAM_REPLICAS (${values.EVENTS_STREAM_REPLICAS}): a consumer cannot have more replicas than its stream`,
        ]
      : [],
  build: (values): { jetstream: Omit<JetStreamSettings, 'subjectRoot'> } => ({
    jetstream: {
      eventsStream: values.EVENTS_STREAM,
      replicas: values.EVENTS_STREAM_REPLICAS,
      maxAgeMs: values.EVENTS_STREAM_MAX_AGE,
      deadLetterStream: values.DEAD_LETTER_STREAM,
      consumer: values.DELIVERY_CONSUMER,
      ackWaitMs: values.DELIVERY_CONSUMER_ACK_WAIT,
      maxAckPending: values.DELIVERY_CONSUMER_MAX_ACK_PENDING,
      consumerReplicas: values.DELIVERY_CONSUMER_REPLICAS,
    },
  }),
});
