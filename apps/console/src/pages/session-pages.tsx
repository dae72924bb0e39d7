import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { failureOf } from '../api/api-failure';
import type { FailureMessage } from '../api/problem-message';
import { beginSignIn, loadConsoleClientConfig } from '../auth/sign-in-flow';
import { FailureNotice, StatusMessage } from '../components/feedback';
import { safeExternalUrl } from '../format/safe-url';

/** The frame of the pages shown when nobody is signed in: the product's name, one main. */
function Plain({ children }: { children: ComponentChildren }) {
  return (
    <>
      <header>
        <span class="product">svc webhooks</span>
      </header>
      <main id="main" class="narrow">
        {children}
      </main>
    </>
  );
}

/** The console's pages as a link after a sign-in: the page the user asked for. */
const currentConsolePath = () => `${location.pathname}${location.search}`;

function SignInButton({ label }: { label: string }) {
  const [failure, setFailure] = useState<FailureMessage | null>(null);
  const [leaving, setLeaving] = useState(false);
  const signIn = async () => {
    setFailure(null);
    setLeaving(true);
    try {
      await beginSignIn(await loadConsoleClientConfig(), currentConsolePath());
    } catch (error) {
      setLeaving(false);
      setFailure(failureOf(error));
    }
  };
  return (
    <>
      {failure ? <FailureNotice failure={failure} title="Signing in is not possible now." /> : null}
      <button type="button" class="button-primary" disabled={leaving} onClick={() => void signIn()}>
        {label}
      </button>
      <StatusMessage message={leaving ? 'Going to the sign-in page…' : null} />
    </>
  );
}

export function SignInPage({
  notice,
  failure,
}: {
  notice: string | null;
  failure: FailureMessage | null;
}) {
  return (
    <Plain>
      <h1>Webhooks console</h1>
      {notice ? <p class="notice">{notice}</p> : null}
      {failure ? <FailureNotice failure={failure} /> : null}
      <p>
        See your webhook endpoints and their health, find deliveries that did not get through and
        send them again. Sign in with your account to continue.
      </p>
      <SignInButton label="Sign in" />
      <p class="muted">
        Came here from another product? A console opened from there ends when the page is reloaded:
        open it again from that product.
      </p>
    </Plain>
  );
}

function ReturnLink({ returnUrl }: { returnUrl: string | null }) {
  const href = safeExternalUrl(returnUrl);
  return href ? (
    <p>
      <a class="button-primary" href={href} target="_top" rel="noopener">
        Return to where you came from
      </a>
    </p>
  ) : (
    <p>Go back to the product you came from and open the console again from there.</p>
  );
}

/** Shown once a session ends by itself: says so, offers the way back, never redirects. */
export function ExpiredPage({
  kind,
  returnUrl,
}: {
  kind: 'portal' | 'user';
  returnUrl: string | null;
}) {
  return (
    <Plain>
      <h1>Your session has expired</h1>
      <p>For your security, console sessions end after a while. Nothing was changed.</p>
      {kind === 'portal' ? (
        <ReturnLink returnUrl={returnUrl} />
      ) : (
        <SignInButton label="Sign in again" />
      )}
    </Plain>
  );
}

export function SignedOutOfPortalPage({ returnUrl }: { returnUrl: string | null }) {
  return (
    <Plain>
      <h1>You have signed out</h1>
      <p>The console session has ended.</p>
      <ReturnLink returnUrl={returnUrl} />
    </Plain>
  );
}

export function LinkFailedPage({
  failure,
  returnUrl,
}: {
  failure: FailureMessage;
  returnUrl: string | null;
}) {
  return (
    <Plain>
      <h1>This console link cannot be opened</h1>
      <FailureNotice failure={failure} />
      <ReturnLink returnUrl={returnUrl} />
    </Plain>
  );
}

export function StartingPage({ activity }: { activity: string }) {
  return (
    <Plain>
      <h1>Webhooks console</h1>
      <p role="status">{activity}…</p>
    </Plain>
  );
}
