import type { CredentialSource } from '../api/api-client';
import type { ConsoleState, SessionView } from './session-state';

/**
 * What a way in (portal session or user sign-in) gives the console: a token to send, a way to
 * renew it after a 401 (or not), and a way to end it at the server.
 */
export interface Credential {
  token(): string | null;
  renewAfterRejection(rejectedToken: string): Promise<boolean>;
  /** Ends the session at the server (best effort) and forgets the tokens. */
  signOut(): Promise<void>;
  /** Forgets the tokens and stops any timer, without telling the server. */
  discard(): void;
}

type Listener = (state: ConsoleState) => void;

/**
 * The one place the console's credential lives: in memory, in this object, for the life of the
 * page (ADR 0042: never web storage, never a cookie, never the URL). Pages subscribe to its
 * state; the API client asks it for the token. An expiry is final for the page: it never starts
 * a new sign-in by itself, so it cannot loop.
 */
export class ConsoleSession implements CredentialSource {
  private state: ConsoleState = { status: 'starting', activity: 'Starting the console' };
  private credential: Credential | null = null;
  private readonly listeners = new Set<Listener>();

  current(): ConsoleState {
    return this.state;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(state: ConsoleState): void {
    this.state = state;
    for (const listener of this.listeners) {
      listener(state);
    }
  }

  signedIn(credential: Credential, session: SessionView): void {
    this.credential?.discard();
    this.credential = credential;
    this.set({ status: 'signed-in', session });
  }

  /** The session is over (401, or its time is up): forget it and say so, with the way back. */
  expire(): void {
    if (this.state.status !== 'signed-in') {
      return;
    }
    const { kind, returnUrl } = this.state.session;
    this.credential?.discard();
    this.credential = null;
    this.set({ status: 'expired', kind, returnUrl });
  }

  async signOut(): Promise<void> {
    if (this.state.status !== 'signed-in') {
      return;
    }
    const { kind, returnUrl } = this.state.session;
    // Signed out with the token still held: the API client sends it with the DELETE or revoke.
    await this.credential?.signOut();
    this.credential = null;
    this.set(
      kind === 'portal'
        ? { status: 'ended', kind, returnUrl }
        : { status: 'signed-out', notice: 'You have signed out.', failure: null },
    );
  }

  bearerToken(): string | null {
    return this.credential?.token() ?? null;
  }

  async renewAfterRejection(rejectedToken: string): Promise<boolean> {
    return (await this.credential?.renewAfterRejection(rejectedToken)) ?? false;
  }

  rejected(): void {
    this.expire();
  }
}
