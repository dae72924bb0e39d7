import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { UndeliveredDelivery } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { DateTime } from '../../components/date-time';
import { useAction } from '../../components/use-action';
import { describeFailure } from '../../format/display-format';
import { Link } from '../../router/link';
import { pathOf } from '../../router/routes';

/**
 * One delivery that did not get through, with the two ways up the ladder of recovery: send this
 * one again, or recover its endpoint (which makes it active again).
 */
export function UndeliveredRow({
  delivery,
  canChange,
  announce,
}: {
  delivery: UndeliveredDelivery;
  canChange: boolean;
  announce: (message: string) => void;
}) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  const replay = () =>
    run(async () => {
      await dataOf(
        client.POST('/v1/deliveries/{delivery_id}/replay', {
          params: { path: { delivery_id: delivery.id } },
        }),
      );
      setDone('Sent again');
      announce(`The delivery of event ${delivery.event_id} is being sent again.`);
    });
  const recover = () =>
    run(async () => {
      const answer = await dataOf(
        client.POST('/v1/webhooks/{id}/recover', {
          params: { path: { id: delivery.endpoint_id } },
          body: {},
        }),
      );
      setDone(`Endpoint ${answer.endpoint.status}`);
      announce(`The endpoint ${answer.endpoint.url} is ${answer.endpoint.status}.`);
    });
  return (
    <tr>
      <th scope="row">
        <Link href={pathOf({ page: 'event', eventId: delivery.event_id })}>
          <code>{delivery.event_id}</code>
        </Link>
        <div class="muted">
          <code>{delivery.event_type}</code>
        </div>
      </th>
      <td>
        <Link href={pathOf({ page: 'endpoint', endpointId: delivery.endpoint_id })}>
          <code>{delivery.endpoint_url ?? delivery.endpoint_id}</code>
        </Link>
      </td>
      <td>{delivery.sequence ?? '—'}</td>
      <td>{delivery.attempts}</td>
      <td>
        <DateTime iso={delivery.last_attempt_at} />
      </td>
      <td>{describeFailure(delivery.last_attempt) || 'not recorded'}</td>
      <td>
        <DateTime iso={delivery.next_attempt_at} />
      </td>
      {canChange ? (
        <td class="row-actions">
          {done ? <span class="notice-inline">{done}</span> : null}
          <button
            type="button"
            class="button-secondary button-small"
            disabled={busy}
            onClick={() => void replay()}
            aria-label={`Replay the delivery of event ${delivery.event_id}`}
          >
            Replay
          </button>
          <button
            type="button"
            class="button-secondary button-small"
            disabled={busy}
            onClick={() => void recover()}
            aria-label={`Recover endpoint ${delivery.endpoint_id}`}
          >
            Recover endpoint
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
