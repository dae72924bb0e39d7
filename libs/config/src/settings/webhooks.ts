import { cidrs, integer, setting } from '../kinds';
import { section } from '../section';

/** Abandoned deliveries one `POST /v1/webhooks/{id}/recover` re-drives at most (ADR 0022). */
export const DEFAULT_RECOVER_REDRIVE_LIMIT = 10_000;

/** Deliveries one `POST /v1/webhooks/{id}/replay` re-sends at most (ADR 0029). */
export const DEFAULT_REPLAY_LIMIT = 10_000;

/** Where endpoints may be: the API checks it at registration, the engine at every connection. */
export const webhookAddresses = section({
  name: 'webhook addresses',
  variables: {
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: setting(
      cidrs(),
      'CIDR ranges endpoints may use although not public (tests: `127.0.0.0/8,::1/128`)',
    ),
  },
  build: (values): { webhooks: { allowedPrivateCidrs: string[] } } => ({
    webhooks: { allowedPrivateCidrs: values.WEBHOOK_ALLOWED_PRIVATE_CIDRS },
  }),
});

export interface WebhookBatchLimits {
  /** Abandoned deliveries one recover call re-drives at most; the answer says if more are left. */
  recoverRedriveLimit: number;
  /** Deliveries one replay call re-sends at most; the answer gives a cursor if more are left. */
  replayLimit: number;
}

/** The caps of the API's recover and replay calls. */
export const webhookBatches = section({
  name: 'webhook batches',
  variables: {
    WEBHOOK_RECOVER_REDRIVE_LIMIT: setting(
      integer(DEFAULT_RECOVER_REDRIVE_LIMIT, 1, 1_000_000),
      'abandoned deliveries one `POST /v1/webhooks/{id}/recover` re-drives at most, in batches of 100; when the answer says `more_to_redrive: true`, call again with the same `redrive_abandoned_since`',
    ),
    WEBHOOK_REPLAY_LIMIT: setting(
      integer(DEFAULT_REPLAY_LIMIT, 1, 1_000_000),
      'deliveries one `POST /v1/webhooks/{id}/replay` sends again at most, in batches of 100; when the answer says `more_to_replay: true`, call again with its `next_cursor`',
    ),
  },
  build: (values): { webhooks: WebhookBatchLimits } => ({
    webhooks: {
      recoverRedriveLimit: values.WEBHOOK_RECOVER_REDRIVE_LIMIT,
      replayLimit: values.WEBHOOK_REPLAY_LIMIT,
    },
  }),
});
