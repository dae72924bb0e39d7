import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import { useConsole } from '../../components/console-context';
import { EndpointStatusBadge } from '../../components/endpoint-status';
import { FailureNotice, Loading, PageHeading } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';
import { formatRateLimit } from '../../format/display-format';
import { Link } from '../../router/link';
import { pathOf } from '../../router/routes';
import { EndpointHealthCells } from './endpoint-health';

/**
 * One page of endpoints at a time, with their health in the same answer: one request per page,
 * never one that grows with the tenant's endpoints or history.
 */
const PAGE_SIZE = 20;

export function EndpointsPage() {
  const { client, session } = useConsole();
  const [cursor, setCursor] = useState<string | null>(null);
  const [page] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/webhooks', {
          params: {
            query: { limit: PAGE_SIZE, include: 'health', ...(cursor ? { cursor } : {}) },
          },
          signal,
        }),
      ),
    cursor ?? '',
  );
  return (
    <>
      <PageHeading>Endpoints</PageHeading>
      {session.canChange ? (
        <p>
          <Link href={pathOf({ page: 'new-endpoint' })} class="button-primary">
            Register an endpoint
          </Link>
        </p>
      ) : null}
      {page.state === 'loading' ? <Loading what="endpoints" /> : null}
      {page.state === 'failed' ? <FailureNotice failure={page.failure} /> : null}
      {page.state === 'ready' && page.value.data.length === 0 ? (
        <p class="card">
          {cursor
            ? 'No more endpoints.'
            : 'No endpoints yet. Register one to start receiving events.'}
        </p>
      ) : null}
      {page.state === 'ready' && page.value.data.length > 0 ? (
        <>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">
                Your endpoints, with their success rate and last attempt over 24 hours
              </caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  <th scope="col">Success (24 h)</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Rate limit</th>
                </tr>
              </thead>
              <tbody>
                {page.value.data.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <th scope="row" class="url-cell">
                      <Link href={pathOf({ page: 'endpoint', endpointId: endpoint.id })}>
                        {endpoint.url}
                      </Link>
                    </th>
                    <td>
                      <EndpointStatusBadge status={endpoint.status} />
                    </td>
                    <EndpointHealthCells health={endpoint.health} />
                    <td>{formatRateLimit(endpoint.rate_limit_per_second)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Endpoint"
            isFirstPage={cursor === null}
            nextCursor={page.value.has_more ? page.value.next_cursor : null}
            onPage={setCursor}
          />
        </>
      ) : null}
    </>
  );
}
