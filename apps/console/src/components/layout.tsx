import type { ComponentChildren } from 'preact';
import { Link } from '../router/link';
import { pathOf, Route } from '../router/routes';
import type { SessionView } from '../session/session-state';
import { formatDateTime } from '../format/display-format';

const NAVIGATION: {
  label: string;
  route: Exclude<Route, { page: 'not-found' }>;
  pages: string[];
}[] = [
  {
    label: 'Endpoints',
    route: { page: 'endpoints' },
    pages: ['endpoints', 'endpoint', 'new-endpoint'],
  },
  { label: 'Undelivered', route: { page: 'undelivered' }, pages: ['undelivered'] },
  { label: 'Event deliveries', route: { page: 'event-search' }, pages: ['event-search', 'event'] },
  { label: 'Event types', route: { page: 'event-types' }, pages: ['event-types'] },
];

/** Sandbox or live, impossible to miss: a labelled badge in the header of every page. */
function EnvironmentBadge({ environment }: { environment: SessionView['environment'] }) {
  return environment === 'test' ? (
    <span class="badge badge-sandbox" title="Sandbox: test endpoints and events only">
      Sandbox
    </span>
  ) : (
    <span class="badge badge-live" title="Live: real endpoints and events">
      Live
    </span>
  );
}

function SessionSummary({ session, onSignOut }: { session: SessionView; onSignOut: () => void }) {
  return (
    <div class="session" aria-label="Session">
      <EnvironmentBadge environment={session.environment} />
      {!session.canChange && session.canRead ? <span class="badge">Read only</span> : null}
      {session.tenantId ? (
        <span class="muted">
          Tenant <code>{session.tenantId}</code>
        </span>
      ) : null}
      {session.expiresAt ? (
        <span class="muted">Session ends {formatDateTime(session.expiresAt.toISOString())}</span>
      ) : null}
      <button type="button" class="button-secondary button-small" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
}

/** The frame of every signed-in page: skip link, header with the session, navigation, main. */
export function Layout({
  route,
  session,
  onSignOut,
  children,
}: {
  route: Route;
  session: SessionView;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header>
        <span class="product">svc webhooks</span>
        <nav aria-label="Console">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.label}>
                <Link
                  href={pathOf(item.route)}
                  {...(item.pages.includes(route.page) ? { 'aria-current': 'page' as const } : {})}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <SessionSummary session={session} onSignOut={onSignOut} />
      </header>
      <main id="main">{children}</main>
    </>
  );
}
