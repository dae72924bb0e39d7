import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { EndpointStats } from '../../api/api-types';
import { AttemptsChart, LatencyChart } from '../../chart/attempts-chart';
import { attemptsSummary, latencySummary } from '../../chart/stats-summary';
import { useConsole } from '../../components/console-context';
import { FailureNotice, Loading } from '../../components/feedback';
import { useLoad } from '../../components/use-load';
import {
  formatCount,
  formatDateTime,
  formatLatency,
  formatRate,
} from '../../format/display-format';

type StatsWindow = '24h' | '7d';
const WINDOW_LABELS: Record<StatsWindow, string> = { '24h': '24 hours', '7d': '7 days' };

function StatsTable({ stats }: { stats: EndpointStats }) {
  return (
    <details class="table-alternative">
      <summary>Show the numbers as a table</summary>
      <div class="table-scroll">
        <table>
          <caption>Attempts and latency per hour (UTC)</caption>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Succeeded</th>
              <th scope="col">Failed</th>
              <th scope="col">Latency p50</th>
              <th scope="col">Latency p99</th>
            </tr>
          </thead>
          <tbody>
            {stats.buckets.map((bucket) => (
              <tr key={bucket.hour}>
                <th scope="row">{formatDateTime(bucket.hour)}</th>
                <td>{formatCount(bucket.succeeded)}</td>
                <td>{formatCount(bucket.failed)}</td>
                <td>{formatLatency(bucket.latency_p50_ms)}</td>
                <td>{formatLatency(bucket.latency_p99_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function StatsView({ stats, window }: { stats: EndpointStats; window: StatsWindow }) {
  const label = WINDOW_LABELS[window];
  return (
    <>
      <dl class="totals">
        <div>
          <dt>Attempts</dt>
          <dd>{formatCount(stats.totals.attempts)}</dd>
        </div>
        <div>
          <dt>Succeeded</dt>
          <dd>{formatCount(stats.totals.succeeded)}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{formatCount(stats.totals.failed)}</dd>
        </div>
        <div>
          <dt>Success rate</dt>
          <dd>{formatRate(stats.totals.success_rate)}</dd>
        </div>
      </dl>
      <figure class="chart-figure">
        <AttemptsChart
          id={`attempts-${window}`}
          buckets={stats.buckets}
          summary={attemptsSummary(stats.buckets, label)}
        />
        <figcaption>
          Attempts per hour, last {label}: <span class="key key-succeeded">succeeded</span>{' '}
          <span class="key key-failed">failed</span>
        </figcaption>
      </figure>
      <figure class="chart-figure">
        <LatencyChart
          id={`latency-${window}`}
          buckets={stats.buckets}
          summary={latencySummary(stats.buckets, label)}
        />
        <figcaption>
          Latency per hour, last {label}: <span class="key key-p50">median (p50)</span>{' '}
          <span class="key key-p99">99th percentile (p99)</span>
        </figcaption>
      </figure>
      <StatsTable stats={stats} />
    </>
  );
}

/** The endpoint's attempts per hour and latency, over 24 hours or 7 days (the stats route). */
export function StatsSection({ endpointId }: { endpointId: string }) {
  const { client } = useConsole();
  const [window, setWindow] = useState<StatsWindow>('24h');
  const [stats] = useLoad(
    (signal) =>
      dataOf(
        client.GET('/v1/webhooks/{id}/stats', {
          params: { path: { id: endpointId }, query: { window } },
          signal,
        }),
      ),
    window,
  );
  return (
    <section aria-labelledby="stats-heading">
      <h2 id="stats-heading">Health</h2>
      <div role="group" aria-label="Time window" class="segmented">
        {(Object.keys(WINDOW_LABELS) as StatsWindow[]).map((option) => (
          <button
            key={option}
            type="button"
            class="button-secondary"
            aria-pressed={option === window}
            onClick={() => setWindow(option)}
          >
            Last {WINDOW_LABELS[option]}
          </button>
        ))}
      </div>
      {stats.state === 'loading' ? <Loading what="the endpoint's health" /> : null}
      {stats.state === 'failed' ? <FailureNotice failure={stats.failure} /> : null}
      {stats.state === 'ready' ? <StatsView stats={stats.value} window={window} /> : null}
    </section>
  );
}
