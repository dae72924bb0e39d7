import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import { useConsole } from '../../components/console-context';
import { FailureNotice, Loading, PageHeading, StatusMessage } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';
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

/** Deliveries that did not get through, across the tenant's endpoints, a page at a time. */
export function UndeliveredPage() {
  const { client, session } = useConsole();
  const [status, setStatus] = useState<UndeliveredStatus>('abandoned');
  const [cursor, setCursor] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [page] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/deliveries', {
          params: { query: { status, limit: 25, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    `${status} ${cursor ?? ''}`,
  );
  return (
    <>
      <PageHeading>Undelivered</PageHeading>
      <StatusMessage message={message} />
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
      {page.state === 'loading' ? <Loading what="deliveries" /> : null}
      {page.state === 'failed' ? <FailureNotice failure={page.failure} /> : null}
      {page.state === 'ready' && page.value.data.length === 0 ? (
        <p class="card">{cursor ? 'No more deliveries.' : STATUS_WORDS[status].empty}</p>
      ) : null}
      {page.state === 'ready' && page.value.data.length > 0 ? (
        <>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">{STATUS_WORDS[status].label} deliveries</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Last failure</th>
                  <th scope="col">Next attempt</th>
                  {session.canChange ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {page.value.data.map((delivery) => (
                  <UndeliveredRow
                    key={delivery.id}
                    delivery={delivery}
                    canChange={session.canChange}
                    announce={setMessage}
                  />
                ))}
              </tbody>
            </table>
          </div>
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
