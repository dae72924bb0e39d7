import { eventSubject, parseEventSubject } from './subjects';

describe('event subjects', () => {
  it('round-trips tenant and dotted type', () => {
    const subject = eventSubject('ten_abc', 'alert.severity_changed');
    expect(subject).toBe('svc.events.ten_abc.alert.severity_changed');
    expect(parseEventSubject(subject)).toEqual({
      tenantId: 'ten_abc',
      type: 'alert.severity_changed',
    });
  });

  it.each([
    'svc.events',
    'svc.events.ten_abc',
    'svc.other.ten_abc.alert.created',
    'svc.events.ten_abc..x',
  ])('refuses %s', (subject) => {
    expect(parseEventSubject(subject)).toBeNull();
  });
});
