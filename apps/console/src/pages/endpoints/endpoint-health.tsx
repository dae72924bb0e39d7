import { dataOf } from '../../api/api-failure';
import { useConsole } from '../../components/console-context';
import { useLoad } from '../../components/use-load';
import { formatDateTime, formatRate } from '../../format/display-format';

interface Health {
  successRate: number | null;
  attempts: number;
  lastAttempt: { at: string; outcome: 'succeeded' | 'failed' } | null;
}

/**
 * The 24-hour success rate and the last attempt of one endpoint of the visible page: two small
 * requests per row (the stats route's index range, and the newest attempt), so a page costs the
 * same whatever the tenant's history.
 */
export function EndpointHealthCells({ endpointId }: { endpointId: string }) {
  const { client } = useConsole();
  const path = { id: endpointId };
  const [health] = useLoad<Health>(async (signal) => {
    const [stats, attempts] = await Promise.all([
      dataOf(
        client.GET('/v1/webhooks/{id}/stats', {
          params: { path, query: { window: '24h' } },
          signal,
        }),
      ),
      dataOf(
        client.GET('/v1/webhooks/{id}/attempts', { params: { path, query: { limit: 1 } }, signal }),
      ),
    ]);
    const newest = attempts.data[0];
    return {
      successRate: stats.totals.success_rate,
      attempts: stats.totals.attempts,
      lastAttempt: newest ? { at: newest.attempted_at, outcome: newest.outcome } : null,
    };
  }, endpointId);
  if (health.state === 'loading') {
    return (
      <>
        <td class="muted">…</td>
        <td class="muted">…</td>
      </>
    );
  }
  if (health.state === 'failed') {
    return (
      <>
        <td colSpan={2} class="muted">
          Not available: {health.failure.summary}
        </td>
      </>
    );
  }
  const { successRate, attempts, lastAttempt } = health.value;
  return (
    <>
      <td>
        {formatRate(successRate)}
        {attempts > 0 ? <span class="muted"> of {attempts}</span> : null}
      </td>
      <td>
        {lastAttempt ? (
          <>
            <time dateTime={lastAttempt.at}>{formatDateTime(lastAttempt.at)}</time>{' '}
            <span class={`outcome outcome-${lastAttempt.outcome}`}>{lastAttempt.outcome}</span>
          </>
        ) : (
          <span class="muted">never</span>
        )}
      </td>
    </>
  );
}
