import { attemptFilterQuery, isFiltered, NO_ATTEMPT_FILTER } from './attempt-filter-query';

describe('attemptFilterQuery', () => {
  it('asks for nothing when nothing is chosen', () => {
    expect(attemptFilterQuery(NO_ATTEMPT_FILTER)).toEqual({});
    expect(isFiltered(NO_ATTEMPT_FILTER)).toBe(false);
  });

  it('sends the outcome, the event type and local times as RFC 3339 instants', () => {
    const query = attemptFilterQuery({
      outcome: 'failed',
      eventType: 'alert.closed',
      from: '2026-03-01T12:30',
      to: '2026-03-01T13:00',
    });
    expect(query).toEqual({
      outcome: 'failed',
      event_type: 'alert.closed',
      from: new Date('2026-03-01T12:30').toISOString(),
      to: new Date('2026-03-01T13:00').toISOString(),
    });
  });

  it('leaves out a time still being typed', () => {
    const filters = { ...NO_ATTEMPT_FILTER, from: '2026-03-01T', to: '' };
    expect(attemptFilterQuery(filters)).toEqual({});
    expect(isFiltered({ ...NO_ATTEMPT_FILTER, eventType: 'alert.created' })).toBe(true);
  });
});
