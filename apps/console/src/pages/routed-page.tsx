import type { Route } from '../router/routes';
import { Link } from '../router/link';
import { PageHeading } from '../components/feedback';
import { EndpointsPage } from './endpoints/endpoints-page';
import { EndpointPage } from './endpoint/endpoint-page';
import { NewEndpointPage } from './new-endpoint/new-endpoint-page';
import { UndeliveredPage } from './undelivered/undelivered-page';
import { EventSearchPage, EventDeliveriesPage } from './events/event-deliveries-page';
import { EventTypesPage } from './event-types/event-types-page';

function NotFoundPage() {
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        The console has no such page. <Link href="/console/">See your endpoints</Link>.
      </p>
    </>
  );
}

/** The page a route names; `key` makes a new page start fresh (state, focus, loads). */
export function RoutedPage({ route }: { route: Route }) {
  switch (route.page) {
    case 'endpoints':
      return <EndpointsPage />;
    case 'new-endpoint':
      return <NewEndpointPage />;
    case 'endpoint':
      return <EndpointPage key={route.endpointId} endpointId={route.endpointId} />;
    case 'undelivered':
      return <UndeliveredPage />;
    case 'event-search':
      return <EventSearchPage />;
    case 'event':
      return <EventDeliveriesPage key={route.eventId} eventId={route.eventId} />;
    case 'event-types':
      return <EventTypesPage />;
    case 'callback':
    case 'not-found':
      return <NotFoundPage />;
  }
}
