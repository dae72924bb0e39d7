import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import { useConsole } from '../../components/console-context';
import { FailureNotice, Loading, PageHeading, StatusMessage } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useEventCatalogue } from '../../components/use-event-catalogue';
import { useLoad } from '../../components/use-load';
import type { EventType, UndeliveredDelivery } from '../../api/api-types';
import { Link } from '../../router/link';
import { useLocationPath } from '../../router/navigation';
import { pathOf } from '../../router/routes';
import { UndeliveredRow } from './undelivered-row';

type UndeliveredStatus = 'abandoned' | 'failing';

const STATUS_WORDS: Record<UndeliveredStatus, { label: string; explain: string; empty: string }> = {
  abandoned: {
    label: 'Abandoned',
    explain: 'Every attempt failed and no retry is left: these events were not delivered.',
    empty: 'No abandoned deliveries. Everything that was sent got through or is still being tried.',
  },
  failing: {
    label: 'Still failing',
    explain: 'The last attempt failed and a retry is scheduled.',
    empty: 'No deliveries are failing right now.',
  },
};

type EventTypeName = EventType['type'];

/** Only one event type's deliveries, among the catalogue's (the API filters). */
function EventTypeFilter({
  value,
  onChange,
}: {
  value: string;
  onChange: (value: string) => void;
}) {
  const catalogue = useEventCatalogue();
  return (
    <>
      <label for="undelivered-event-type">Event type</label>
      <select
        id="undelivered-event-type"
        class="inline-control"
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
      >
        <option value="">All event types</option>
        {catalogue.state === 'ready'
          ? catalogue.value.map((eventType) => (
              <option key={eventType.type} value={eventType.type}>
                {eventType.type}
              </option>
            ))
          : null}
      </select>
    </>
  );
}

function UndeliveredTable({
  caption,
  deliveries,
  canChange,
  announce,
}: {
  caption: string;
  deliveries: UndeliveredDelivery[];
  canChange: boolean;
  announce: (message: string) => void;
}) {
  return (
    <div class="table-scroll">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Sequence</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Last failure</th>
            <th scope="col">Next attempt</th>
            {canChange ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <UndeliveredRow
              key={delivery.id}
              delivery={delivery}
              canChange={canChange}
              announce={announce}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Deliveries that did not get through, across the tenant's endpoints (or one endpoint's, from
 * `?endpoint_id=`), a page at a time.
 */
export function UndeliveredPage() {
  const { client, session } = useConsole();
  const endpointId = new URLSearchParams(useLocationPath().search).get('endpoint_id');
  const [status, setStatus] = useState<UndeliveredStatus>('abandoned');
  const [eventType, setEventType] = useState('');
  const [cursor, setCursor] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [page] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/deliveries', {
          params: {
            query: {
              status,
              limit: 25,
              ...(cursor ? { cursor } : {}),
              ...(endpointId ? { endpoint_id: endpointId } : {}),
              ...(eventType ? { event_type: eventType as EventTypeName } : {}),
            },
          },
          signal,
        }),
      ),
    `${status} ${cursor ?? ''} ${endpointId ?? ''} ${eventType}`,
  );
  return (
    <>
      <PageHeading>Undelivered</PageHeading>
      <StatusMessage message={message} />
      {endpointId ? (
        <p class="notice">
          Only deliveries to endpoint <code>{endpointId}</code>.{' '}
          <Link href={pathOf({ page: 'undelivered' })}>Show every endpoint's</Link>
        </p>
      ) : null}
      <div role="group" aria-label="Which deliveries" class="segmented">
        {(Object.keys(STATUS_WORDS) as UndeliveredStatus[]).map((option) => (
          <button
            key={option}
            type="button"
            class="button-secondary"
            aria-pressed={option === status}
            onClick={() => {
              setStatus(option);
              setCursor(null);
            }}
          >
            {STATUS_WORDS[option].label}
          </button>
        ))}
      </div>
      <p class="muted">{STATUS_WORDS[status].explain}</p>
      <EventTypeFilter
        value={eventType}
        onChange={(value) => {
          setEventType(value);
          setCursor(null);
        }}
      />
      {page.state === 'loading' ? <Loading what="deliveries" /> : null}
      {page.state === 'failed' ? <FailureNotice failure={page.failure} /> : null}
      {page.state === 'ready' && page.value.data.length === 0 ? (
        <p class="card">{cursor ? 'No more deliveries.' : STATUS_WORDS[status].empty}</p>
      ) : null}
      {page.state === 'ready' && page.value.data.length > 0 ? (
        <>
          <UndeliveredTable
            caption={`${STATUS_WORDS[status].label} deliveries`}
            deliveries={page.value.data}
            canChange={session.canChange}
            announce={setMessage}
          />
          <Pager
            label="Delivery"
            isFirstPage={cursor === null}
            nextCursor={page.value.has_more ? page.value.next_cursor : null}
            onPage={setCursor}
          />
        </>
      ) : null}
    </>
  );
}
