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
import {
  attemptFilterQuery,
  AttemptFilterValues,
  isFiltered,
  NO_ATTEMPT_FILTER,
} from './attempt-filter-query';
import { AttemptFilters } from './attempt-filters';

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
      <td>{attempt.event_type ?? '—'}</td>
      <td>{attempt.sequence ?? '—'}</td>
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

/** What an empty page says: a filtered one may be empty with more to look at (a scan budget). */
function emptyPageMessage(filtered: boolean, hasMore: boolean, isFirstPage: boolean): string {
  if (hasMore) {
    return 'No matching attempts in this stretch of the history; the next page looks further back.';
  }
  if (!isFirstPage) {
    return 'No more matching attempts.';
  }
  return filtered ? 'No attempts match these filters.' : 'No attempts yet.';
}

/**
 * The endpoint's attempts, newest first, a page at a time, filtered by outcome, event type and
 * time. A filtered page may hold fewer attempts than asked, even none, with more to come: the
 * API reads a bounded number of attempts per request, so the pager goes on while it says so.
 */
export function AttemptsSection({ endpointId }: { endpointId: string }) {
  const { client } = useConsole();
  const [filters, setFilters] = useState<AttemptFilterValues>(NO_ATTEMPT_FILTER);
  const [cursor, setCursor] = useState<string | null>(null);
  const query = attemptFilterQuery(filters);
  const [page] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/webhooks/{id}/attempts', {
          params: {
            path: { id: endpointId },
            query: { limit: PAGE_SIZE, ...query, ...(cursor ? { cursor } : {}) },
          },
          signal,
        }),
      ),
    `${JSON.stringify(query)} ${cursor ?? ''}`,
  );
  const pager =
    page.state === 'ready' ? (
      <Pager
        label="Attempt"
        isFirstPage={cursor === null}
        nextCursor={page.value.has_more ? page.value.next_cursor : null}
        onPage={setCursor}
      />
    ) : null;
  return (
    <section aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts</h2>
      <AttemptFilters
        value={filters}
        onChange={(value) => {
          setFilters(value);
          setCursor(null);
        }}
      />
      {page.state === 'loading' ? <Loading what="attempts" /> : null}
      {page.state === 'failed' ? <FailureNotice failure={page.failure} /> : null}
      {page.state === 'ready' && page.value.data.length === 0 ? (
        <>
          <p class="card">
            {emptyPageMessage(isFiltered(filters), page.value.has_more, cursor === null)}
          </p>
          {pager}
        </>
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
                  <th scope="col">Event type</th>
                  <th scope="col">Sequence</th>
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
          {pager}
        </>
      ) : null}
    </section>
  );
}
