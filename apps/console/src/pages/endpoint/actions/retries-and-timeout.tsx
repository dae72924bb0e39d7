import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import { useConsole } from '../../../components/console-context';
import { FailureNotice, FieldErrors } from '../../../components/feedback';
import {
  listFieldErrors,
  retryScheduleFromField,
  timeoutFromField,
} from '../../../components/form-values';
import { useAction } from '../../../components/use-action';
import type { EndpointActionProps } from '../endpoint-actions';

/** The ids a field's input points to with aria-describedby: its hint, and its errors if any. */
const describedBy = (id: string, errors: string[] | undefined) =>
  `${id}-hint${errors ? ` ${id}-error` : ''}`;

/**
 * The endpoint's own retry schedule and attempt timeout (ADR 0048), each empty for the
 * deployment's (PATCH with null).
 */
export function RetriesAndTimeout({ endpoint, announce, onChanged, close }: EndpointActionProps) {
  const { client } = useConsole();
  const { busy, failure, run } = useAction();
  const [schedule, setSchedule] = useState(endpoint.retry_schedule?.join(', ') ?? '');
  const [timeoutText, setTimeoutText] = useState(endpoint.timeout_seconds?.toString() ?? '');
  const scheduleErrors = failure
    ? listFieldErrors(failure.fieldErrors, 'retry_schedule')
    : undefined;
  const timeoutErrors = failure?.fieldErrors.timeout_seconds;
  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const updated = await dataOf(
        client.PATCH('/v1/webhooks/{id}', {
          params: { path: { id: endpoint.id } },
          body: {
            retry_schedule: retryScheduleFromField(schedule),
            timeout_seconds: timeoutFromField(timeoutText),
          },
        }),
      );
      onChanged(updated);
      announce('The retry schedule and timeout were saved.');
      close();
    });
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="policy-heading" noValidate>
      <h3 id="policy-heading">Retries and timeout</h3>
      {failure ? <FailureNotice failure={failure} title="Not saved." takeFocus /> : null}
      <label for="policy-retry-schedule">Retry schedule (optional)</label>
      <input
        id="policy-retry-schedule"
        type="text"
        autoComplete="off"
        spellcheck={false}
        placeholder="10s, 1m, 1h"
        value={schedule}
        aria-describedby={describedBy('policy-retry-schedule', scheduleErrors)}
        aria-invalid={scheduleErrors ? true : undefined}
        onInput={(event) => setSchedule(event.currentTarget.value)}
      />
      <p id="policy-retry-schedule-hint" class="hint">
        The waits before each retry, separated by commas: 1 to 8 of them, each a whole number of
        seconds (s), minutes (m) or hours (h) from 1s to 24h. A delivery gets one attempt more than
        there are waits. Leave empty for the default.
      </p>
      <FieldErrors id="policy-retry-schedule-error" messages={scheduleErrors} />
      <label for="policy-timeout">Attempt timeout in seconds (optional)</label>
      <input
        id="policy-timeout"
        // Text, not number: a number input gives '' for what it cannot read, which would mean the default.
        type="text"
        inputMode="numeric"
        autoComplete="off"
        value={timeoutText}
        aria-describedby={describedBy('policy-timeout', timeoutErrors)}
        aria-invalid={timeoutErrors ? true : undefined}
        onInput={(event) => setTimeoutText(event.currentTarget.value)}
      />
      <p id="policy-timeout-hint" class="hint">
        A whole number from 1 to 10, from connecting to the end of the answer. Leave empty for the
        default.
      </p>
      <FieldErrors id="policy-timeout-error" messages={timeoutErrors} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="button-secondary" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
