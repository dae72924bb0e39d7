import { newId } from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import type { EntityManager } from 'typeorm';
import { CommandContext, commandMetadata } from './command-context';

/**
 * Management actions that change nothing of the endpoint's own state, and so leave no endpoint
 * event: each request records one of these, so that the audit trail has one entry per action
 * (ADR 0047). Each is the only event of a stream of its own (`act_…`): it never contends with the
 * endpoint's writes or moves its version, and, not being delivery data, it is kept for good like
 * the endpoints' history.
 */
export const REQUESTED_ACTION_TYPES = {
  testRequested: 'webhook_endpoint.test_requested',
  replayRequested: 'webhook_endpoint.replay_requested',
  recoveryRequested: 'webhook_endpoint.recovery_requested',
  portalSessionMinted: 'portal_session.minted',
} as const;

export interface TestRequested {
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
}

/** One delivery (`delivery_id`), or the endpoint's deliveries of a time range (`from`, `to`). */
export interface ReplayRequested {
  endpoint_id: string;
  delivery_id?: string;
  from?: string;
  to?: string;
  /** Set on the calls after the first of a long replay. */
  cursor?: string;
}

export interface RecoveryRequested {
  endpoint_id: string;
  /** Null: the endpoint only, no abandoned delivery re-driven. */
  redrive_abandoned_since: string | null;
}

/** Never the link's token: the link id, what it opens and until when. */
export interface PortalSessionMinted {
  link_id: string;
  read_only: boolean;
  return_url: string | null;
  expires_at: string;
}

export type RequestedAction =
  | { type: typeof REQUESTED_ACTION_TYPES.testRequested; data: TestRequested }
  | { type: typeof REQUESTED_ACTION_TYPES.replayRequested; data: ReplayRequested }
  | { type: typeof REQUESTED_ACTION_TYPES.recoveryRequested; data: RecoveryRequested }
  | { type: typeof REQUESTED_ACTION_TYPES.portalSessionMinted; data: PortalSessionMinted };

/** Records the action in the caller's transaction, with who asked and from where. */
export async function recordRequestedAction(
  manager: EntityManager,
  context: CommandContext,
  action: RequestedAction,
): Promise<void> {
  await appendToStream<RequestedAction>(manager, newId('act'), 0, [
    { ...action, metadata: commandMetadata(context) },
  ]);
}
