import { useState } from 'preact/hooks';
import { dataOf } from '../../../api/api-failure';
import type { EventSubscription, SignatureScheme } from '../../../api/api-types';
import { useConsole } from '../../../components/console-context';
import { EventPicker } from '../../../components/event-picker';
import { FailureNotice, Loading } from '../../../components/feedback';
import {
  orderingFromField,
  rateLimitFromField,
  signatureSchemesFromField,
} from '../../../components/form-values';
import { OrderingField } from '../../../components/ordering-field';
import { RateLimitField } from '../../../components/rate-limit-field';
import { SignatureSchemesField } from '../../../components/signature-schemes-field';
import { useAction } from '../../../components/use-action';
import { useEventCatalogue } from '../../../components/use-event-catalogue';
import type { EndpointActionProps } from '../endpoint-actions';

/**
 * Changes what the endpoint subscribes to, its rate limit, signature schemes and delivery order
 * (PATCH; the URL stays).
 */
export function EditEndpoint({ endpoint, announce, onChanged, close }: EndpointActionProps) {
  const { client } = useConsole();
  const catalogue = useEventCatalogue();
  const { busy, failure, run } = useAction();
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [rateLimit, setRateLimit] = useState(endpoint.rate_limit_per_second?.toString() ?? '');
  const [schemes, setSchemes] = useState<SignatureScheme[]>(endpoint.signature_schemes);
  const orderingChoice = useState<string>(endpoint.ordering);
  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const updated = await dataOf(
        client.PATCH('/v1/webhooks/{id}', {
          params: { path: { id: endpoint.id } },
          body: {
            events: events as EventSubscription[],
            rate_limit_per_second: rateLimitFromField(rateLimit),
            signature_schemes: signatureSchemesFromField(schemes),
            ordering: orderingFromField(orderingChoice[0]),
          },
        }),
      );
      onChanged(updated);
      announce('The endpoint was saved.');
      close();
    });
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="edit-heading" noValidate>
      <h3 id="edit-heading">Edit events, rate limit, signatures and order</h3>
      {failure ? <FailureNotice failure={failure} title="Not saved." /> : null}
      {catalogue.state === 'loading' ? <Loading what="the event types" /> : null}
      {catalogue.state === 'failed' ? <FailureNotice failure={catalogue.failure} /> : null}
      {catalogue.state === 'ready' ? (
        <EventPicker
          idPrefix="edit"
          catalogue={catalogue.value}
          selected={events}
          onChange={setEvents}
          errors={failure?.fieldErrors.events}
        />
      ) : null}
      <RateLimitField
        id="edit-rate-limit"
        value={rateLimit}
        onInput={setRateLimit}
        errors={failure?.fieldErrors.rate_limit_per_second}
      />
      <SignatureSchemesField
        idPrefix="edit"
        selected={schemes}
        onChange={setSchemes}
        errors={failure?.fieldErrors.signature_schemes}
      />
      <OrderingField
        idPrefix="edit"
        state={orderingChoice}
        errors={failure?.fieldErrors.ordering}
      />
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
