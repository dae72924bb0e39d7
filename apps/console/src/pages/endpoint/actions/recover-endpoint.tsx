import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import { useConsole } from '../../../components/console-context';
import { FailureNotice, FieldErrors } from '../../../components/feedback';
import { requiredInstant } from '../../../components/form-values';
import { useAction } from '../../../components/use-action';
import { isoFromLocalInput, localInputFromDate } from '../../../format/datetime-input';
import { formatCount } from '../../../format/display-format';
import type { EndpointActionProps } from '../endpoint-actions';

/**
 * Makes a degraded or disabled endpoint active again and, if asked, sends again the deliveries
 * to it abandoned since a time (the API re-drives up to a batch per call; call again for more).
 */
export function RecoverEndpoint({ endpoint, announce, onChanged }: EndpointActionProps) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [redrive, setRedrive] = useState(true);
  const [since, setSince] = useState(localInputFromDate(new Date(Date.now() - 24 * 3_600_000)));
  const [result, setResult] = useState<{ redriven: number; more: boolean } | null>(null);
  const recover = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const body = redrive
        ? {
            redrive_abandoned_since: requiredInstant(
              'redrive_abandoned_since',
              isoFromLocalInput(since),
            ),
          }
        : {};
      const answer = await dataOf(
        client.POST('/v1/webhooks/{id}/recover', { params: { path: { id: endpoint.id } }, body }),
      );
      onChanged(answer.endpoint);
      setResult({ redriven: answer.redriven_deliveries, more: answer.more_to_redrive });
      announce(
        `The endpoint is ${answer.endpoint.status}. ${formatCount(answer.redriven_deliveries)} abandoned deliveries sent again.`,
      );
    });
  };
  return (
    <form class="card" onSubmit={recover} aria-labelledby="recover-heading" noValidate>
      <h3 id="recover-heading">Recover the endpoint</h3>
      <p>
        Once the receiver works again: the endpoint becomes active, and deliveries abandoned while
        it failed can be sent again.
      </p>
      {failure ? <FailureNotice failure={failure} title="Not recovered." /> : null}
      <label class="checkbox">
        <input
          type="checkbox"
          checked={redrive}
          onChange={(event) => setRedrive(event.currentTarget.checked)}
        />
        Also send again the deliveries abandoned since
      </label>
      <label for="recover-since">Abandoned since (your local time)</label>
      <input
        id="recover-since"
        type="datetime-local"
        value={since}
        disabled={!redrive}
        onInput={(event) => setSince(event.currentTarget.value)}
        aria-describedby={
          failure?.fieldErrors.redrive_abandoned_since ? 'recover-since-error' : undefined
        }
      />
      <FieldErrors
        id="recover-since-error"
        messages={failure?.fieldErrors.redrive_abandoned_since}
      />
      <button type="submit" class="button-primary" disabled={busy}>
        {busy
          ? 'Recovering…'
          : result?.more
            ? 'Recover and send the next batch'
            : 'Recover the endpoint'}
      </button>
      {result ? (
        <p class="notice">
          {formatCount(result.redriven)} abandoned deliveries sent again
          {result.more ? '; more are left: recover again to send the next batch.' : '.'}
        </p>
      ) : null}
    </form>
  );
}
