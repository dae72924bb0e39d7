import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiClient } from './api/api-client';
import { ConsoleContext } from './components/console-context';
import { Layout } from './components/layout';
import { RoutedPage } from './pages/routed-page';
import { matchRoute } from './router/routes';
import { useLocationPath } from './router/navigation';
import type { ConsoleSession } from './session/console-session';
import type { SessionView } from './session/session-state';
import {
  ExpiredPage,
  LinkFailedPage,
  SignedOutOfPortalPage,
  SignInPage,
  StartingPage,
} from './pages/session-pages';
import { NoAccessPage } from './pages/no-access-page';

function SignedInConsole({
  client,
  session,
  onSignOut,
}: {
  client: ApiClient;
  session: SessionView;
  onSignOut: () => void;
}) {
  const { pathname } = useLocationPath();
  const route = matchRoute(pathname);
  const services = useMemo(() => ({ client, session }), [client, session]);
  return (
    <ConsoleContext.Provider value={services}>
      <Layout route={route} session={session} onSignOut={onSignOut}>
        {session.canRead ? <RoutedPage route={route} /> : <NoAccessPage />}
      </Layout>
    </ConsoleContext.Provider>
  );
}

/** The whole console: what the session's state calls for, then the page the address names. */
export function App({ session, client }: { session: ConsoleSession; client: ApiClient }) {
  const [state, setState] = useState(session.current());
  useEffect(() => {
    const unsubscribe = session.subscribe(setState);
    // The state may have changed between the first render and this effect (startConsole runs
    // at once): take it now, or the page stays on "starting" (a load-order race).
    setState(session.current());
    return unsubscribe;
  }, [session]);
  switch (state.status) {
    case 'starting':
      return <StartingPage activity={state.activity} />;
    case 'signed-out':
      return <SignInPage notice={state.notice} failure={state.failure} />;
    case 'expired':
      return <ExpiredPage kind={state.kind} returnUrl={state.returnUrl} />;
    case 'ended':
      return <SignedOutOfPortalPage returnUrl={state.returnUrl} />;
    case 'link-failed':
      return <LinkFailedPage failure={state.failure} returnUrl={state.returnUrl} />;
    case 'signed-in':
      return (
        <SignedInConsole
          client={client}
          session={state.session}
          onSignOut={() => void session.signOut()}
        />
      );
  }
}
