import { useState } from 'preact/hooks';
import type { Endpoint } from '../../api/api-types';
import { useConsole } from '../../components/console-context';
import { PageHeading, StatusMessage } from '../../components/feedback';
import { SecretReveal } from '../../components/secret-reveal';
import { Link } from '../../router/link';
import { pathOf } from '../../router/routes';
import { TestEventRunner } from '../endpoint/actions/send-test-event';
import { RegistrationForm } from './registration-form';

/**
 * Registering an endpoint, in two steps: the form (URL, events, rate limit, a secret made here
 * and shown), then a test event to see the receiver answer, and on to the endpoint's page.
 */
export function NewEndpointPage() {
  const { session } = useConsole();
  const [registered, setRegistered] = useState<{ endpoint: Endpoint; secret: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  if (!session.canChange) {
    return (
      <>
        <PageHeading>Register an endpoint</PageHeading>
        <p>This session is read only: it cannot register endpoints.</p>
      </>
    );
  }
  return (
    <>
      <p class="breadcrumb">
        <Link href={pathOf({ page: 'endpoints' })}>Endpoints</Link>
      </p>
      <PageHeading>
        {registered ? 'Step 2 of 2: send a test event' : 'Step 1 of 2: register an endpoint'}
      </PageHeading>
      <StatusMessage message={message} />
      {registered ? (
        <>
          <p class="notice">
            <code>{registered.endpoint.url}</code> is registered.
          </p>
          <SecretReveal id="registered-secret" secret={registered.secret} label="Signing secret" />
          <section class="card" aria-labelledby="test-heading">
            <h2 id="test-heading">Send a test event</h2>
            <TestEventRunner endpointId={registered.endpoint.id} announce={setMessage} />
          </section>
          <p>
            <Link
              class="button-secondary"
              href={pathOf({ page: 'endpoint', endpointId: registered.endpoint.id })}
            >
              Go to the endpoint
            </Link>
          </p>
        </>
      ) : (
        <RegistrationForm
          onRegistered={(endpoint, secret) => {
            setRegistered({ endpoint, secret });
            setMessage('The endpoint is registered. Next, send it a test event.');
          }}
        />
      )}
    </>
  );
}
