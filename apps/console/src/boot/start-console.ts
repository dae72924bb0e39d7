import type { ApiClient } from '../api/api-client';
import { ApiFailure, failureOf } from '../api/api-failure';
import { returnUrlOfProblem, type FailureMessage } from '../api/problem-message';
import type { ConsoleClientConfig } from '../auth/console-client-config';
import { completeSignIn, loadConsoleClientConfig, SignInRefused } from '../auth/sign-in-flow';
import { navigate } from '../router/navigation';
import type { ConsoleSession } from '../session/console-session';
import { exchangePortalLink } from '../session/portal-session';
import { UserCredential, userSessionView } from '../session/user-session';
import type { LaunchAddress } from './capture-launch';

const PORTAL_LINK_REFUSED: FailureMessage = {
  summary: 'This console link cannot be used.',
  detail:
    'Console links work once and for a few minutes only. Go back to the product you came from and open the console again.',
  fieldErrors: {},
};

async function startPortalSession(
  session: ConsoleSession,
  client: ApiClient,
  token: string | null,
): Promise<void> {
  if (!token) {
    session.set({ status: 'link-failed', failure: PORTAL_LINK_REFUSED, returnUrl: null });
    return;
  }
  session.set({ status: 'starting', activity: 'Opening the console link' });
  try {
    const { credential, session: view } = await exchangePortalLink(client, token, () =>
      session.expire(),
    );
    session.signedIn(credential, view);
  } catch (error) {
    const refused = error instanceof ApiFailure && error.status !== null && error.status < 500;
    session.set({
      status: 'link-failed',
      failure: refused ? PORTAL_LINK_REFUSED : failureOf(error),
      // A used or expired link's problem names where the platform wants its users back.
      returnUrl: refused ? returnUrlOfProblem(error.problem) : null,
    });
  }
}

async function finishUserSignIn(
  session: ConsoleSession,
  launch: LaunchAddress,
  config: ConsoleClientConfig,
): Promise<void> {
  session.set({ status: 'starting', activity: 'Signing you in' });
  try {
    const { tokens, returnTo } = await completeSignIn(config, launch.callback!);
    const credential = new UserCredential(config, tokens, () => session.expire());
    session.signedIn(credential, userSessionView(tokens));
    navigate(returnTo, { replace: true });
  } catch (error) {
    const failure: FailureMessage =
      error instanceof SignInRefused
        ? { summary: error.message, detail: null, fieldErrors: {} }
        : failureOf(error);
    session.set({ status: 'signed-out', notice: null, failure });
  }
}

/**
 * The console's first steps, after the address bar was cleaned: a portal link is exchanged; an
 * OAuth callback completes the sign-in; anything else shows the sign-in page (never a redirect
 * by itself: an automatic sign-in after an expiry is how portals loop).
 */
export async function startConsole(
  session: ConsoleSession,
  client: ApiClient,
  launch: LaunchAddress,
  clientConfig: () => Promise<ConsoleClientConfig> = loadConsoleClientConfig,
): Promise<void> {
  if (launch.portalLink) {
    await startPortalSession(session, client, launch.portalToken);
    return;
  }
  if (launch.callback) {
    let config: ConsoleClientConfig;
    try {
      config = await clientConfig();
    } catch (error) {
      session.set({ status: 'signed-out', notice: null, failure: failureOf(error) });
      return;
    }
    await finishUserSignIn(session, launch, config);
    return;
  }
  session.set({ status: 'signed-out', notice: null, failure: null });
}
