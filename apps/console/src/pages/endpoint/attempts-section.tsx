import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { Attempt } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { FailureNotice, Loading } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';
import {
  describeFailure,
  excerpt,
  formatDateTime,
  formatLatency,
} from '../../format/display-format';
import { Link } from '../../router/link';
import { pathOf } from '../../router/routes';

type OutcomeFilter = 'all' | 'succeeded' | 'failed';
const PAGE_SIZE = 25;

function AttemptRow({ attempt }: { attempt: Attempt }) {
  const error = describeFailure(attempt, false);
  return (
    <tr>
      <th scope="row">
        <time dateTime={attempt.attempted_at}>{formatDateTime(attempt.attempted_at)}</time>
      </th>
      <td>
        <Link href={pathOf({ page: 'event', eventId: attempt.event_id })}>
          <code>{attempt.event_id}</code>
        </Link>
      </td>
      <td>{attempt.attempt}</td>
      <td>
        <span class={`outcome outcome-${attempt.outcome}`}>{attempt.outcome}</span>
      </td>
      <td>{attempt.status_code ?? '—'}</td>
      <td>{formatLatency(attempt.latency_ms)}</td>
      <td>{error || '—'}</td>
      <td>
        {attempt.response_excerpt ? (
          <code class="excerpt" title={attempt.response_excerpt}>
            {excerpt(attempt.response_excerpt, 80)}
          </code>
        ) : (
          '—'
        )}
      </td>
    </tr>
  );
}

/**
 * The endpoint's attempts, newest first, a page at a time, filtered by outcome (the one filter
 * the attempts route has: no time range or event type yet).
 */
export function AttemptsSection({ endpointId }: { endpointId: string }) {
  const { client } = useConsole();
  const [outcome, setOutcome] = useState<OutcomeFilter>('all');
  const [cursor, setCursor] = useState<string | null>(null);
  const [page] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/webhooks/{id}/attempts', {
          params: {
            path: { id: endpointId },
            query: {
              limit: PAGE_SIZE,
              ...(outcome !== 'all' ? { outcome } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
          signal,
        }),
      ),
    `${outcome} ${cursor ?? ''}`,
  );
  return (
    <section aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts</h2>
      <label for="attempt-outcome">Outcome</label>
      <select
        id="attempt-outcome"
        class="inline-control"
        value={outcome}
        onChange={(event) => {
          setOutcome(event.currentTarget.value as OutcomeFilter);
          setCursor(null);
        }}
      >
        <option value="all">All attempts</option>
        <option value="succeeded">Succeeded</option>
        <option value="failed">Failed</option>
      </select>
      {page.state === 'loading' ? <Loading what="attempts" /> : null}
      {page.state === 'failed' ? <FailureNotice failure={page.failure} /> : null}
      {page.state === 'ready' && page.value.data.length === 0 ? (
        <p class="card">{outcome === 'all' ? 'No attempts yet.' : `No ${outcome} attempts.`}</p>
      ) : null}
      {page.state === 'ready' && page.value.data.length > 0 ? (
        <>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Attempts to this endpoint, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Status code</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Error</th>
                  <th scope="col">Response</th>
                </tr>
              </thead>
              <tbody>
                {page.value.data.map((attempt) => (
                  <AttemptRow key={`${attempt.delivery_id}-${attempt.attempt}`} attempt={attempt} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Attempt"
            isFirstPage={cursor === null}
            nextCursor={page.value.has_more ? page.value.next_cursor : null}
            onPage={setCursor}
          />
        </>
      ) : null}
    </section>
  );
}
