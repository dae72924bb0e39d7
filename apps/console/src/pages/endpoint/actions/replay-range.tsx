import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useConsole } from '../../../components/console-context';
import { FailureNotice, FieldErrors } from '../../../components/feedback';
import { requiredInstant } from '../../../components/form-values';
import { useAction } from '../../../components/use-action';
import { isoFromLocalInput, localInputFromDate } from '../../../format/datetime-input';
import { formatCount, formatDateTime } from '../../../format/display-format';
import type { EndpointActionProps } from '../endpoint-actions';

interface Progress {
  replayed: number;
  nextCursor: string | null;
}

/**
 * Sends again every delivery to this endpoint whose event is in [from, to), after a confirmation
 * that says what will happen. The API replays in batches: "Continue" sends the next one.
 */
export function ReplayRange({ endpoint, announce }: EndpointActionProps) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const now = new Date();
  const [from, setFrom] = useState(localInputFromDate(new Date(now.getTime() - 3_600_000)));
  const [to, setTo] = useState(localInputFromDate(now));
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const range = () => ({
    from: requiredInstant('from', isoFromLocalInput(from)),
    to: requiredInstant('to', isoFromLocalInput(to)),
  });
  const replay = (cursor: string | null) =>
    run(async () => {
      setConfirming(false);
      const answer = await dataOf(
        client.POST('/v1/webhooks/{id}/replay', {
          params: { path: { id: endpoint.id } },
          body: { ...range(), ...(cursor ? { cursor } : {}) },
        }),
      );
      const replayed = (cursor ? (progress?.replayed ?? 0) : 0) + answer.replayed_deliveries;
      setProgress({ replayed, nextCursor: answer.more_to_replay ? answer.next_cursor : null });
      announce(
        `${formatCount(replayed)} deliveries sent again${answer.more_to_replay ? ' so far; more are left' : ''}.`,
      );
    });
  const errors = failure?.fieldErrors ?? {};
  return (
    <form
      class="card"
      aria-labelledby="replay-heading"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void run(() => Promise.resolve(range())).then((checked) => checked && setConfirming(true));
      }}
    >
      <h3 id="replay-heading">Replay a time range</h3>
      <p>
        Every delivery to this endpoint whose event is in the range is sent again, whatever became
        of it, with the same event id (your receiver can drop what it already has).
      </p>
      {failure ? <FailureNotice failure={failure} title="Not replayed." /> : null}
      <label for="replay-from">From (your local time)</label>
      <input
        id="replay-from"
        type="datetime-local"
        value={from}
        onInput={(event) => setFrom(event.currentTarget.value)}
        aria-describedby={errors.from ? 'replay-from-error' : undefined}
      />
      <FieldErrors id="replay-from-error" messages={errors.from} />
      <label for="replay-to">To, excluded (your local time)</label>
      <input
        id="replay-to"
        type="datetime-local"
        value={to}
        onInput={(event) => setTo(event.currentTarget.value)}
        aria-describedby={errors.to ? 'replay-to-error' : undefined}
      />
      <FieldErrors id="replay-to-error" messages={errors.to} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy}>
          Replay…
        </button>
        {progress?.nextCursor ? (
          <button
            type="button"
            class="button-secondary"
            disabled={busy}
            onClick={() => void replay(progress.nextCursor)}
          >
            Continue with the next batch
          </button>
        ) : null}
      </div>
      {progress ? (
        <p class="notice">
          {formatCount(progress.replayed)} deliveries sent again
          {progress.nextCursor ? '; more are left in the range.' : '; the whole range is done.'}
        </p>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title="Replay these deliveries?"
          confirmLabel="Replay"
          onConfirm={() => void replay(null)}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Every delivery to <code>{endpoint.url}</code> of events from{' '}
            {formatDateTime(range().from)} to {formatDateTime(range().to)} will be sent again, each
            with a new run of attempts. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </form>
  );
}
