import { SubjectScheme } from './subjects';

describe('SubjectScheme', () => {
  const subjects = new SubjectScheme();

  it('uses the svc root of the design by default', () => {
    expect(subjects.event('ten_abc', 'alert.created')).toBe('svc.events.ten_abc.alert.created');
    expect(subjects.eventsFilter).toBe('svc.events.>');
    expect(subjects.deadLetter('invalid-json')).toBe('svc.deadletter.invalid-json');
  });

  it('round-trips tenant and dotted type', () => {
    const subject = subjects.event('ten_abc', 'alert.severity_changed');
    expect(subjects.parseEvent(subject)).toEqual({
      tenantId: 'ten_abc',
      type: 'alert.severity_changed',
    });
  });

  it.each([
    'svc.events',
    'svc.events.ten_abc',
    'svc.other.ten_abc.alert.created',
    'svc.events.ten_abc..x',
    'other.events.ten_abc.alert.created',
  ])('refuses %s', (subject) => {
    expect(subjects.parseEvent(subject)).toBeNull();
  });

  it("puts the service's own events under ops, apart from the platform's (ADR 0030)", () => {
    const subject = subjects.operational('ten_abc', 'webhook.endpoint.degraded');
    expect(subject).toBe('svc.ops.ten_abc.webhook.endpoint.degraded');
    expect(subjects.operationalFilter).toBe('svc.ops.>');
    expect(subjects.operationalFilterOf('ten_abc')).toBe('svc.ops.ten_abc.>');
    expect(subjects.parseOperational(subject)).toEqual({
      tenantId: 'ten_abc',
      type: 'webhook.endpoint.degraded',
    });
    expect(subjects.parseEvent(subject)).toBeNull();
    expect(subjects.parseOperational(subjects.event('ten_abc', 'alert.created'))).toBeNull();
    expect(subjects.parseOperational('svc.ops.ten_abc')).toBeNull();
  });

  it('keeps deployments with other roots apart', () => {
    const staging = new SubjectScheme('staging.svc');
    expect(staging.event('ten_a', 'alert.created')).toBe('staging.svc.events.ten_a.alert.created');
    expect(subjects.parseEvent(staging.event('ten_a', 'alert.created'))).toBeNull();
    expect(staging.operationalFilter).toBe('staging.svc.ops.>');
    expect(subjects.parseOperational(staging.operational('ten_a', 'webhook.test'))).toBeNull();
    expect(() => new SubjectScheme('bad root>')).toThrow();
  });
});
