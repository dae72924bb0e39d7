import { useState } from 'preact/hooks';
import { dataOf } from '../../api/api-failure';
import type { Endpoint, EventSubscription, SignatureScheme } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { EventPicker } from '../../components/event-picker';
import { FailureNotice, FieldErrors, Loading } from '../../components/feedback';
import {
  orderingFromField,
  rateLimitFromField,
  signatureSchemesFromField,
} from '../../components/form-values';
import { OrderingField } from '../../components/ordering-field';
import { RateLimitField } from '../../components/rate-limit-field';
import { SecretReveal } from '../../components/secret-reveal';
import { SignatureSchemesField } from '../../components/signature-schemes-field';
import { useAction } from '../../components/use-action';
import { useEventCatalogue } from '../../components/use-event-catalogue';
import { generateSigningSecret } from './signing-secret';

/** The registration form: POST /v1/webhooks with a secret generated here, in the browser. */
export function RegistrationForm({
  onRegistered,
}: {
  onRegistered: (endpoint: Endpoint, secret: string) => void;
}) {
  const { client } = useConsole();
  const catalogue = useEventCatalogue();
  const { busy, failure, run } = useAction();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [rateLimit, setRateLimit] = useState('');
  // The API's default, shown ticked so the choice is visible.
  const [schemes, setSchemes] = useState<SignatureScheme[]>(['hmac-sha256']);
  const orderingChoice = useState('unordered');
  const [secret, setSecret] = useState(() => generateSigningSecret(crypto));
  const errors = failure?.fieldErrors ?? {};
  const register = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const endpoint = await dataOf(
        client.POST('/v1/webhooks', {
          body: {
            url: url.trim(),
            events: events as EventSubscription[],
            secret,
            rate_limit_per_second: rateLimitFromField(rateLimit),
            signature_schemes: signatureSchemesFromField(schemes),
            ordering: orderingFromField(orderingChoice[0]),
          },
        }),
      );
      onRegistered(endpoint, secret);
    });
  };
  return (
    <form onSubmit={register} aria-labelledby="register-heading" noValidate class="card">
      <h2 id="register-heading">The endpoint</h2>
      {failure ? <FailureNotice failure={failure} title="Not registered." /> : null}
      <label for="register-url">URL</label>
      <input
        id="register-url"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellcheck={false}
        required
        placeholder="https://hooks.example.com/svc"
        value={url}
        aria-invalid={errors.url ? true : undefined}
        aria-describedby={`register-url-hint${errors.url ? ' register-url-error' : ''}`}
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <p id="register-url-hint" class="hint">
        An https URL your receiver listens on, reachable from the internet.
      </p>
      <FieldErrors id="register-url-error" messages={errors.url} />
      {catalogue.state === 'loading' ? <Loading what="the event types" /> : null}
      {catalogue.state === 'failed' ? <FailureNotice failure={catalogue.failure} /> : null}
      {catalogue.state === 'ready' ? (
        <EventPicker
          idPrefix="register"
          catalogue={catalogue.value}
          selected={events}
          onChange={setEvents}
          errors={errors.events}
        />
      ) : null}
      <SecretReveal
        id="register-secret"
        secret={secret}
        label="Signing secret (made in your browser)"
      />
      <button
        type="button"
        class="button-secondary"
        onClick={() => setSecret(generateSigningSecret(crypto))}
      >
        Make another secret
      </button>
      <FieldErrors id="register-secret-error" messages={errors.secret} />
      <RateLimitField
        id="register-rate-limit"
        value={rateLimit}
        onInput={setRateLimit}
        errors={errors.rate_limit_per_second}
      />
      <SignatureSchemesField
        idPrefix="register"
        selected={schemes}
        onChange={setSchemes}
        errors={errors.signature_schemes}
      />
      <OrderingField idPrefix="register" state={orderingChoice} errors={errors.ordering} />
      <button type="submit" class="button-primary" disabled={busy}>
        {busy ? 'Registering…' : 'Register the endpoint'}
      </button>
    </form>
  );
}
