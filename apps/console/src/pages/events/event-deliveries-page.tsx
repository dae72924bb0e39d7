import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { Delivery } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { DateTime } from '../../components/date-time';
import { FailureNotice, Loading, PageHeading, StatusMessage } from '../../components/feedback';
import { useAction } from '../../components/use-action';
import { useLoad } from '../../components/use-load';
import { formatDateTime } from '../../format/display-format';
import { Link } from '../../router/link';
import { navigate } from '../../router/navigation';
import { pathOf } from '../../router/routes';

function EventSearchForm({ initial }: { initial: string }) {
  const [eventId, setEventId] = useState(initial);
  return (
    <form
      role="search"
      class="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        const id = eventId.trim();
        if (id) {
          navigate(pathOf({ page: 'event', eventId: id }));
        }
      }}
    >
      <label for="event-id">Event id</label>
      <div class="inline-row">
        <input
          id="event-id"
          type="search"
          autoComplete="off"
          spellcheck={false}
          placeholder="evt_…"
          value={eventId}
          onInput={(event) => setEventId(event.currentTarget.value)}
        />
        <button type="submit" class="button-primary">
          Find deliveries
        </button>
      </div>
    </form>
  );
}

export function EventSearchPage() {
  return (
    <>
      <PageHeading>Event deliveries</PageHeading>
      <p>An event's deliveries, one per endpoint that subscribed to it, from the event's id.</p>
      <EventSearchForm initial="" />
    </>
  );
}

function DeliveryRow({
  delivery,
  canChange,
  announce,
}: {
  delivery: Delivery;
  canChange: boolean;
  announce: (message: string) => void;
}) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [status, setStatus] = useState(delivery.status);
  const replay = () =>
    run(async () => {
      const replayed = await dataOf(
        client.POST('/v1/deliveries/{delivery_id}/replay', {
          params: { path: { delivery_id: delivery.id } },
        }),
      );
      setStatus(replayed.status);
      announce(`The delivery to ${delivery.endpoint_id} is being sent again.`);
    });
  return (
    <tr>
      <th scope="row">
        <Link href={pathOf({ page: 'endpoint', endpointId: delivery.endpoint_id })}>
          <code>{delivery.endpoint_id}</code>
        </Link>
      </th>
      <td>{delivery.sequence ?? '—'}</td>
      <td>
        <span class={`badge delivery-${status}`}>{status}</span>
      </td>
      <td>{delivery.attempts}</td>
      <td>
        <DateTime iso={delivery.last_attempt_at} />
      </td>
      <td>
        <DateTime iso={delivery.next_attempt_at} />
      </td>
      <td>
        <DateTime iso={delivery.completed_at} />
      </td>
      {canChange ? (
        <td class="row-actions">
          <button
            type="button"
            class="button-secondary button-small"
            disabled={busy}
            onClick={() => void replay()}
            aria-label={`Replay the delivery to ${delivery.endpoint_id}`}
          >
            Replay
          </button>
          {failure ? (
            <p class="field-error" role="alert">
              {failure.summary} {failure.detail ?? ''}
            </p>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

/** One event's deliveries (one per subscribed endpoint), each with a replay. */
export function EventDeliveriesPage({ eventId }: { eventId: string }) {
  const { client, session } = useConsole();
  const [message, setMessage] = useState<string | null>(null);
  const [deliveries] = useLoad(
    async (signal) =>
      (
        await dataOf(
          client.GET('/v1/events/{event_id}/deliveries', {
            params: { path: { event_id: eventId } },
            signal,
          }),
        )
      ).data,
    eventId,
  );
  return (
    <>
      <PageHeading>
        Deliveries of event <code>{eventId}</code>
      </PageHeading>
      <EventSearchForm initial={eventId} />
      <StatusMessage message={message} />
      {deliveries.state === 'loading' ? <Loading what="the event's deliveries" /> : null}
      {deliveries.state === 'failed' ? <FailureNotice failure={deliveries.failure} /> : null}
      {deliveries.state === 'ready' && deliveries.value.length === 0 ? (
        <p class="card">
          No deliveries for this event: no endpoint of yours subscribed to it, or no such event.
        </p>
      ) : null}
      {deliveries.state === 'ready' && deliveries.value.length > 0 ? (
        <>
          <p>
            Event type <code>{deliveries.value[0].event_type}</code>, received{' '}
            {formatDateTime(deliveries.value[0].created_at)}.
          </p>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Deliveries of the event, one per endpoint</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Sequence</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Completed</th>
                  {session.canChange ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {deliveries.value.map((delivery) => (
                  <DeliveryRow
                    key={delivery.id}
                    delivery={delivery}
                    canChange={session.canChange}
                    announce={setMessage}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}
