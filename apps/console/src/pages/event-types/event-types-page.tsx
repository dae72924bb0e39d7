import type { EventType } from '../../api/api-types';
import { FailureNotice, Loading, PageHeading } from '../../components/feedback';
import { groupByFamily } from '../../components/subscriptions';
import { useEventCatalogue } from '../../components/use-event-catalogue';

const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

function EventTypeEntry({ eventType }: { eventType: EventType }) {
  const headingId = `type-${eventType.type.replace(/\W/g, '-')}`;
  return (
    <article class="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        <code>{eventType.type}</code>
      </h3>
      <p>{eventType.description}</p>
      <div class="schema-example">
        <details>
          <summary>Schema of its data</summary>
          <pre tabIndex={0} aria-label={`Schema of ${eventType.type}`}>
            <code>{pretty(eventType.data_schema)}</code>
          </pre>
        </details>
        <details open>
          <summary>Example delivery body</summary>
          <pre tabIndex={0} aria-label={`Example delivery body of ${eventType.type}`}>
            <code>{pretty(eventType.example)}</code>
          </pre>
        </details>
      </div>
    </article>
  );
}

/** The catalogue of event types an endpoint can subscribe to, by family, with schemas. */
export function EventTypesPage() {
  const catalogue = useEventCatalogue();
  return (
    <>
      <PageHeading>Event types</PageHeading>
      <p>
        What an endpoint can subscribe to. Subscribe to a whole family with its wildcard, such as{' '}
        <code>alert.*</code>.
      </p>
      {catalogue.state === 'loading' ? <Loading what="the event types" /> : null}
      {catalogue.state === 'failed' ? <FailureNotice failure={catalogue.failure} /> : null}
      {catalogue.state === 'ready'
        ? groupByFamily(catalogue.value).map(([family, types]) => (
            <section key={family} aria-labelledby={`family-${family}`}>
              <h2 id={`family-${family}`}>
                {family} <span class="muted">({`${family}.*`})</span>
              </h2>
              {types.map((eventType) => (
                <EventTypeEntry key={eventType.type} eventType={eventType} />
              ))}
            </section>
          ))
        : null}
    </>
  );
}
