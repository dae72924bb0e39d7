import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { Endpoint } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { EndpointStatusBadge } from '../../components/endpoint-status';
import { FailureNotice, Loading, PageHeading, StatusMessage } from '../../components/feedback';
import { useLoad } from '../../components/use-load';
import {
  formatDateTime,
  formatOrdering,
  formatRateLimit,
  formatRetrySchedule,
  formatSignatureScheme,
  formatTimeout,
} from '../../format/display-format';
import { Link } from '../../router/link';
import { pathOf } from '../../router/routes';
import { EndpointActions } from './endpoint-actions';
import { AttemptsSection } from './attempts-section';
import { ReceiverAuthSummary } from './receiver-auth-summary';
import { StatsSection } from './stats-section';

function EndpointDetails({ endpoint }: { endpoint: Endpoint }) {
  return (
    <dl class="details card">
      <div>
        <dt>URL</dt>
        <dd>
          <code class="url">{endpoint.url}</code>
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <EndpointStatusBadge status={endpoint.status} />
        </dd>
      </div>
      <div>
        <dt>Endpoint id</dt>
        <dd>
          <code>{endpoint.id}</code>
        </dd>
      </div>
      <div>
        <dt>Events</dt>
        <dd>
          <ul class="inline-list">
            {endpoint.events.map((event) => (
              <li key={event}>
                <code>{event}</code>
              </li>
            ))}
          </ul>
        </dd>
      </div>
      <div>
        <dt>Rate limit</dt>
        <dd>{formatRateLimit(endpoint.rate_limit_per_second)}</dd>
      </div>
      <div>
        <dt>Signature schemes</dt>
        <dd>{endpoint.signature_schemes.map(formatSignatureScheme).join(', ')}</dd>
      </div>
      <div>
        <dt>Delivery order</dt>
        <dd>{formatOrdering(endpoint.ordering)}</dd>
      </div>
      <div>
        <dt>Receiver authentication</dt>
        <dd>
          <ReceiverAuthSummary auth={endpoint.auth} />
        </dd>
      </div>
      <div>
        <dt>Retry schedule</dt>
        <dd>{formatRetrySchedule(endpoint.retry_schedule)}</dd>
      </div>
      <div>
        <dt>Attempt timeout</dt>
        <dd>{formatTimeout(endpoint.timeout_seconds)}</dd>
      </div>
      <div>
        <dt>Registered</dt>
        <dd>{formatDateTime(endpoint.created_at)}</dd>
      </div>
      {endpoint.previous_secret_expires_at ? (
        <div>
          <dt>Previous secret signs until</dt>
          <dd>{formatDateTime(endpoint.previous_secret_expires_at)}</dd>
        </div>
      ) : null}
    </dl>
  );
}

/** One endpoint: its details, the actions the session may take, its health and its attempts. */
export function EndpointPage({ endpointId }: { endpointId: string }) {
  const { client, session } = useConsole();
  const [message, setMessage] = useState<string | null>(null);
  const [changed, setChanged] = useState<Endpoint | null>(null);
  const [loaded] = useLoad(
    (signal) =>
      dataOf(client.GET('/v1/webhooks/{id}', { params: { path: { id: endpointId } }, signal })),
    endpointId,
  );
  const endpoint = changed ?? (loaded.state === 'ready' ? loaded.value : null);
  return (
    <>
      <p class="breadcrumb">
        <Link href={pathOf({ page: 'endpoints' })}>Endpoints</Link>
      </p>
      <PageHeading>
        Endpoint {endpoint ? <span class="url">{endpoint.url}</span> : null}
      </PageHeading>
      <StatusMessage message={message} />
      {loaded.state === 'loading' && !endpoint ? <Loading what="the endpoint" /> : null}
      {loaded.state === 'failed' ? <FailureNotice failure={loaded.failure} /> : null}
      {endpoint ? (
        <>
          <EndpointDetails endpoint={endpoint} />
          {session.canChange ? (
            <EndpointActions endpoint={endpoint} announce={setMessage} onChanged={setChanged} />
          ) : null}
          <p>
            <Link
              href={`${pathOf({ page: 'undelivered' })}?endpoint_id=${encodeURIComponent(endpoint.id)}`}
            >
              Deliveries to this endpoint that did not get through
            </Link>
          </p>
          <StatsSection endpointId={endpoint.id} />
          <AttemptsSection endpointId={endpoint.id} />
        </>
      ) : null}
    </>
  );
}
