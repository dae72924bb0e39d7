import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { SubjectScheme } from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { metricValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';

/**
 * Messages that must never be delivered and never loop (issue 30), through real NATS: an event
 * nested 20,000 levels deep, published twice as a publisher retrying past JetStream's duplicate
 * window would (the second copy overflowed the stack of the stored-body comparison and was nak'ed
 * every 5 s for ever), and an envelope that names its tenant twice (a last-member-wins parser
 * read one tenant, a first-member-wins receiver the other). Each is parked with its reason,
 * counted, and the consumer moves on to the next event.
 */
describe('poison messages: parked with their reason, the consumer moving on', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  /** Publishes raw bytes as a publisher without Nats-Msg-Id does: JetStream keeps every copy. */
  const publishRaw = async (tenantId: string, body: string) => {
    const subject = new SubjectScheme(stack.settings.subjectRoot).event(tenantId, 'alert.created');
    await jetstream(stack.nats).publish(subject, body);
  };

  async function parkedReasons(after: number): Promise<string[]> {
    const jsm = await jetstreamManager(stack.nats);
    const { last_seq } = (await jsm.streams.info(stack.settings.deadLetterStream)).state;
    const reasons: string[] = [];
    for (let seq = after + 1; seq <= last_seq; seq += 1) {
      const message = await jsm.streams.getMessage(stack.settings.deadLetterStream, { seq });
      reasons.push(message?.header.get('Svc-Rejection-Reason') ?? '');
    }
    return reasons;
  }

  it('parks an event nested 20,000 levels deep, each copy, and delivers the event behind it', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/deep`);
    const jsm = await jetstreamManager(stack.nats);
    const parkedBefore = (await jsm.streams.info(stack.settings.deadLetterStream)).state.last_seq;
    const head = JSON.stringify({ ...newEventEnvelope(tenantId, 'alert.created', {}), data: 0 });
    // Written out by hand: JSON.stringify itself recurses.
    const deep = head.replace('"data":0', `"data":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);

    await publishRaw(tenantId, deep);
    await publishRaw(tenantId, deep);
    const after = newEventEnvelope(tenantId, 'alert.created', { behind: 'the deep ones' });
    await stack.publisher.publish(after);

    await waitFor(() =>
      Promise.resolve(receiver.requests.some((request) => request.path === '/deep')),
    );
    expect(receiver.requests.filter((request) => request.path === '/deep')).toHaveLength(1);
    expect(
      JSON.parse(receiver.requests.find((r) => r.path === '/deep')!.rawBody.toString()),
    ).toMatchObject({
      id: after.id,
    });
    await waitFor(async () => (await parkedReasons(parkedBefore)).length === 2);
    expect(await parkedReasons(parkedBefore)).toEqual(['envelope-too-deep', 'envelope-too-deep']);
    await waitFor(
      async () =>
        (await metricValue(
          stack.engine.managementUrl,
          'svc_delivery_events_rejected_total',
          'envelope-too-deep',
        )) === 2,
    );
    const consumer = await jsm.consumers.info(stack.settings.eventsStream, stack.settings.consumer);
    expect(consumer.num_ack_pending).toBe(0);
    expect(consumer.num_redelivered).toBe(0);
  });

  it('parks an envelope that names its tenant twice, never delivering it to either tenant', async () => {
    const a = await stack.newTenant();
    const b = await stack.newTenant();
    await stack.registerEndpoint(a.key, `${receiver.url}/tenant-a`);
    await stack.registerEndpoint(b.key, `${receiver.url}/tenant-b`);
    const jsm = await jetstreamManager(stack.nats);
    const parkedBefore = (await jsm.streams.info(stack.settings.deadLetterStream)).state.last_seq;
    const envelope = JSON.stringify(newEventEnvelope(b.tenantId, 'alert.created', { x: 1 }));
    const twice = `${envelope.slice(0, -1)},"tenant_id":"${a.tenantId}"}`;

    await publishRaw(a.tenantId, twice);
    const after = newEventEnvelope(a.tenantId, 'alert.created', { behind: 'the twice-named one' });
    await stack.publisher.publish(after);

    await waitFor(() =>
      Promise.resolve(receiver.requests.some((request) => request.path === '/tenant-a')),
    );
    const delivered = receiver.requests.filter((request) => request.path.startsWith('/tenant-'));
    expect(delivered.map((request) => JSON.parse(request.rawBody.toString()).id)).toEqual([
      after.id,
    ]);
    await waitFor(async () => (await parkedReasons(parkedBefore)).length === 1);
    expect(await parkedReasons(parkedBefore)).toEqual(['duplicate-member']);
  });
});
