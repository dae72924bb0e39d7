import { groupByFamily, isCovered, selectFamily, toggleSubscription } from './subscriptions';

describe('subscriptions', () => {
  it('toggles one type', () => {
    expect(toggleSubscription(['alert.created'], 'incident.created', true)).toEqual([
      'alert.created',
      'incident.created',
    ]);
    expect(
      toggleSubscription(['alert.created', 'incident.created'], 'alert.created', false),
    ).toEqual(['incident.created']);
    expect(toggleSubscription(['alert.created'], 'alert.created', true)).toEqual(['alert.created']);
  });

  it("replaces a family's types by its wildcard, and back", () => {
    const selected = ['alert.created', 'alert.closed', 'incident.created'];
    expect(selectFamily(selected, 'alert', true)).toEqual(['incident.created', 'alert.*']);
    expect(selectFamily(['incident.created', 'alert.*'], 'alert', false)).toEqual([
      'incident.created',
    ]);
  });

  it('knows what a wildcard covers', () => {
    expect(isCovered(['alert.*'], 'alert.closed')).toBe(true);
    expect(isCovered(['alert.*'], 'incident.created')).toBe(false);
    expect(isCovered(['webhook.test'], 'webhook.test')).toBe(true);
  });

  it('groups the catalogue by family', () => {
    expect(
      groupByFamily([
        { type: 'alert.created', family: 'alert' },
        { type: 'incident.created', family: 'incident' },
        { type: 'alert.closed', family: 'alert' },
      ]),
    ).toEqual([
      [
        'alert',
        [
          { type: 'alert.created', family: 'alert' },
          { type: 'alert.closed', family: 'alert' },
        ],
      ],
      ['incident', [{ type: 'incident.created', family: 'incident' }]],
    ]);
  });
});
