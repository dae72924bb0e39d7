import { EventEnvelope, SubjectScheme } from '@svc/contracts';
import { audienceOf, reservedTypeProblem, routeOf } from './intake-source';

describe('intake sources (ADR 0030)', () => {
  const subjects = new SubjectScheme('svc');
  const envelope = (data: Record<string, unknown>): EventEnvelope => ({
    id: 'evt_1',
    type: 'webhook.endpoint.degraded',
    created_at: '2026-01-01T00:00:00Z',
    tenant_id: 'ten_1',
    data,
  });

  it('reads each source by its own subjects', () => {
    const ops = subjects.operational('ten_1', 'webhook.endpoint.degraded');
    const events = subjects.event('ten_1', 'alert.created');
    expect(routeOf(subjects, 'operational', ops)).toEqual({
      tenantId: 'ten_1',
      type: 'webhook.endpoint.degraded',
    });
    expect(routeOf(subjects, 'platform', events)).toEqual({
      tenantId: 'ten_1',
      type: 'alert.created',
    });
    expect(routeOf(subjects, 'platform', ops)).toBeNull();
    expect(routeOf(subjects, 'operational', events)).toBeNull();
  });

  it('refuses webhook.* from the platform, and anything else on the ops subjects', () => {
    expect(reservedTypeProblem('platform', 'webhook.endpoint.degraded')).toMatch(
      /webhook service's own/,
    );
    expect(reservedTypeProblem('platform', 'webhook.future_type')).not.toBeNull();
    expect(reservedTypeProblem('platform', 'alert.created')).toBeNull();
    expect(reservedTypeProblem('operational', 'webhook.delivery.abandoned')).toBeNull();
    expect(reservedTypeProblem('operational', 'alert.created')).toMatch(/only webhook\.\*/);
  });

  it('gives platform events to live endpoints, and an operational event to its endpoint environment', () => {
    expect(audienceOf('platform', envelope({ environment: 'test' }))).toBe('live');
    expect(audienceOf('operational', envelope({ environment: 'test' }))).toBe('test');
    expect(audienceOf('operational', envelope({ environment: 'live' }))).toBe('live');
    expect(audienceOf('operational', envelope({}))).toBeNull();
    expect(audienceOf('operational', envelope({ environment: 'staging' }))).toBeNull();
  });
});
