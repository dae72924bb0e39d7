import type { FailureMessage } from '../api/problem-message';

/** Sandbox (`test`) or live: the API keeps them apart, and so does the console's header. */
export type Environment = 'live' | 'test';

/** What the pages need to know about whoever is signed in. Never the token itself. */
export interface SessionView {
  kind: 'portal' | 'user';
  tenantId: string | null;
  environment: Environment;
  /** A read-only portal session, or a user without webhooks:manage: no action is shown. */
  canChange: boolean;
  /** Whether the API will answer at all (a user without webhooks:manage cannot read either). */
  canRead: boolean;
  /** When the session ends, if known. */
  expiresAt: Date | null;
  /** Where the platform that minted a portal session wants its users sent back. */
  returnUrl: string | null;
}

/** The console's whole state of being signed in or not; pages render from it. */
export type ConsoleState =
  | { status: 'starting'; activity: string }
  | { status: 'signed-out'; notice: string | null; failure: FailureMessage | null }
  | { status: 'signed-in'; session: SessionView }
  | { status: 'expired'; kind: 'portal' | 'user'; returnUrl: string | null }
  | { status: 'ended'; kind: 'portal'; returnUrl: string | null }
  | { status: 'link-failed'; failure: FailureMessage; returnUrl: string | null };
