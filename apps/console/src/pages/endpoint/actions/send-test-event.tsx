import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import type { Attempt } from '../../../api/api-types';
import { useConsole } from '../../../components/console-context';
import { FailureNotice } from '../../../components/feedback';
import { useAction } from '../../../components/use-action';
import { describeErrorKind, excerpt, formatLatency } from '../../../format/display-format';
import { Link } from '../../../router/link';
import { pathOf } from '../../../router/routes';
import type { EndpointActionProps } from '../endpoint-actions';

type TestResult = { kind: 'attempt'; attempt: Attempt } | { kind: 'pending'; eventId: string };

function TestResultCard({ result }: { result: TestResult }) {
  if (result.kind === 'pending') {
    return (
      <div class="notice">
        <p>
          The test event is on its way, but no attempt was made in time (is a delivery engine
          running?). Follow it on{' '}
          <Link href={pathOf({ page: 'event', eventId: result.eventId })}>its deliveries</Link>.
        </p>
      </div>
    );
  }
  const { attempt } = result;
  const succeeded = attempt.outcome === 'succeeded';
  return (
    <div class={succeeded ? 'notice' : 'error'}>
      <p>
        <strong>
          {succeeded ? 'The test event was delivered.' : 'The test event was not delivered.'}
        </strong>{' '}
        {attempt.status_code !== null
          ? `The receiver answered ${attempt.status_code}`
          : 'No answer'}{' '}
        in {formatLatency(attempt.latency_ms)}.
        {attempt.error_kind ? ` ${describeErrorKind(attempt.error_kind)}.` : ''}
      </p>
      {attempt.error_message ? <p>{attempt.error_message}</p> : null}
      {attempt.response_excerpt ? (
        <p>
          Response: <code class="excerpt">{excerpt(attempt.response_excerpt, 200)}</code>
        </p>
      ) : null}
      <p>
        <Link href={pathOf({ page: 'event', eventId: attempt.event_id })}>
          See the test event's delivery
        </Link>
      </p>
    </div>
  );
}

/**
 * Sends a signed `webhook.test` event to the endpoint now and shows its one attempt. Used on the
 * endpoint page and as the last step of registering one.
 */
export function TestEventRunner({
  endpointId,
  announce,
}: {
  endpointId: string;
  announce: (message: string) => void;
}) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [result, setResult] = useState<TestResult | null>(null);
  const send = () =>
    run(async () => {
      setResult(null);
      const answer = await dataOf(
        client.POST('/v1/webhooks/{id}/test', { params: { path: { id: endpointId } } }),
      );
      const next: TestResult =
        'outcome' in answer
          ? { kind: 'attempt', attempt: answer }
          : { kind: 'pending', eventId: answer.event_id };
      setResult(next);
      announce(
        next.kind === 'pending'
          ? 'The test event was sent; its attempt is not recorded yet.'
          : `The test event ${next.attempt.outcome === 'succeeded' ? 'was delivered' : 'failed'}.`,
      );
    });
  return (
    <>
      <p>
        Sends a signed <code>webhook.test</code> event now, with every header of a real delivery. It
        is tried once and changes nothing about the endpoint.
      </p>
      <button type="button" class="button-primary" disabled={busy} onClick={() => void send()}>
        {busy ? 'Sending the test event…' : 'Send the test event'}
      </button>
      {failure ? <FailureNotice failure={failure} /> : null}
      {result ? <TestResultCard result={result} /> : null}
    </>
  );
}

export function SendTestEvent({ endpoint, announce }: EndpointActionProps) {
  return (
    <div class="card">
      <h3>Send a test event</h3>
      <TestEventRunner endpointId={endpoint.id} announce={announce} />
    </div>
  );
}
