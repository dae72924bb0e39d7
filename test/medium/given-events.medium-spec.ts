import { given, registeredEvent, T0 } from '@svc/testing/builders';
import {
  applyEndpointEvent,
  decideDegrade,
  decideReactivate,
  EndpointEvent,
  EndpointState,
} from '@svc/webhook-endpoints';

/** The given/when/then helper over a decider and its fold together (test/support/builders). */
describe('given(events).when(decision).then(events)', () => {
  const history: EndpointEvent[] = [registeredEvent()];

  it('given a registered endpoint, when a delivery is abandoned, then it is degraded and the fold says so', () => {
    const after = given<EndpointState, EndpointEvent>(applyEndpointEvent, history)
      .when((state) => decideDegrade({ deliveryId: 'del_1' }, state!, T0))
      .then([
        {
          type: 'webhook_endpoint.degraded',
          data: {
            endpoint_id: 'wh_1',
            reason: 'delivery_abandoned',
            delivery_id: 'del_1',
            at: T0.toISOString(),
          },
        },
      ]);
    expect(after?.status).toBe('degraded');
    expect(after?.version).toBe(2);
  });

  it('given a degraded endpoint, when a delivery succeeds, then it is active again', () => {
    const degraded = given<EndpointState, EndpointEvent>(applyEndpointEvent, history).when(
      (state) => decideDegrade({ deliveryId: 'del_1' }, state!, T0),
    );
    const after = given<EndpointState, EndpointEvent>(applyEndpointEvent, [
      ...history,
      ...degraded.events,
    ])
      .when((state) =>
        decideReactivate({ reason: 'delivery_succeeded', deliveryId: 'del_2' }, state!, T0),
      )
      .then([
        {
          type: 'webhook_endpoint.reactivated',
          data: {
            endpoint_id: 'wh_1',
            reason: 'delivery_succeeded',
            delivery_id: 'del_2',
            at: T0.toISOString(),
          },
        },
      ]);
    expect(after?.status).toBe('active');
  });

  it('given an active endpoint, when a delivery succeeds, then nothing is decided and the state stays', () => {
    const decided = given<EndpointState, EndpointEvent>(applyEndpointEvent, history).when((state) =>
      decideReactivate({ reason: 'delivery_succeeded', deliveryId: 'del_2' }, state!, T0),
    );
    expect(decided.then([])?.status).toBe('active');
  });

  it('fails a then() whose events differ from the decision', () => {
    const decided = given<EndpointState, EndpointEvent>(applyEndpointEvent, history).when((state) =>
      decideDegrade({ deliveryId: 'del_1' }, state!, T0),
    );
    expect(() => decided.then([])).toThrow();
  });
});
