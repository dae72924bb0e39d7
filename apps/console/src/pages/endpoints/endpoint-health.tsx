import type { components } from '../../api/schema';
import { DateTime } from '../../components/date-time';
import { formatCount, formatRate } from '../../format/display-format';

type EndpointHealth = components['schemas']['EndpointHealth'];

/**
 * The 24-hour success rate and the last attempt of one endpoint of the visible page, as
 * `GET /v1/webhooks?include=health` gives them with the page: one request for the whole page,
 * whatever the tenant's history (the API reads an index range per endpoint).
 */
export function EndpointHealthCells({ health }: { health: EndpointHealth | undefined }) {
  if (!health) {
    return (
      <>
        <td class="muted">not available</td>
        <td class="muted">not available</td>
      </>
    );
  }
  return (
    <>
      <td>
        {formatRate(health.success_rate)}
        {health.attempts > 0 ? <span class="muted"> of {formatCount(health.attempts)}</span> : null}
      </td>
      <td>
        {health.last_attempt_at ? (
          <>
            <DateTime iso={health.last_attempt_at} />{' '}
            {health.last_attempt_outcome ? (
              <span class={`outcome outcome-${health.last_attempt_outcome}`}>
                {health.last_attempt_outcome}
              </span>
            ) : null}
            {health.last_attempt_status_code !== null ? (
              <span class="muted"> (HTTP {health.last_attempt_status_code})</span>
            ) : null}
          </>
        ) : (
          <span class="muted">never</span>
        )}
      </td>
    </>
  );
}
