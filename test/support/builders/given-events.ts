/**
 * Decider tests as given / when / then over the events themselves: the history is folded by the
 * aggregate's own fold (`applyDeliveryEvent`, `applyEndpointEvent`), the decision is asked of that
 * state, and both what it decided and the state after it are checked, so that a decision and the
 * fold cannot drift apart unseen.
 *
 *   given(applyEndpointEvent, [registeredEvent()])
 *     .when((state) => decideDegrade({ deliveryId: 'del_1' }, state!, T0))
 *     .then([degradedEvent]);
 */
export type Fold<S, E> = (state: S | null, event: E, version: number) => S | null;

export interface Decided<S, E> {
  /** The decision's events, checked for equality; returns the state once they are folded in. */
  then(expected: readonly E[]): S | null;
  /** The decision's events, for checks `then` cannot express. */
  readonly events: readonly E[];
  /** The state once the decision's events are folded in. */
  readonly state: S | null;
}

export function given<S, E>(fold: Fold<S, E>, history: readonly E[]) {
  const before = history.reduce<S | null>(
    (state, event, index) => fold(state, event, index + 1),
    null,
  );
  return {
    /** The state the history folds to. */
    state: before,
    when(decide: (state: S | null) => readonly E[]): Decided<S, E> {
      const events = decide(before);
      const after = events.reduce<S | null>(
        (state, event, index) => fold(state, event, history.length + index + 1),
        before,
      );
      return {
        events,
        state: after,
        then(expected) {
          expect(events).toEqual(expected);
          return after;
        },
      };
    },
  };
}
