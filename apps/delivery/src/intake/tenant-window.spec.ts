import { TenantWindow } from './tenant-window';

describe('TenantWindow', () => {
  it('given nothing taken, names no tenant', () => {
    const window = new TenantWindow(4);
    expect(window.busiest()).toBeNull();
    expect(window.size).toBe(0);
  });

  it('names the tenant with the most of the last messages, and how many', () => {
    const window = new TenantWindow(4);
    for (const tenant of ['ten_a', 'ten_b', 'ten_a']) {
      window.note(tenant);
    }
    expect(window.busiest()).toEqual({ tenantId: 'ten_a', messages: 2 });
    expect(window.size).toBe(3);
  });

  it('forgets the oldest messages once full', () => {
    const window = new TenantWindow(3);
    for (const tenant of ['ten_a', 'ten_a', 'ten_a', 'ten_b', 'ten_b']) {
      window.note(tenant);
    }
    expect(window.busiest()).toEqual({ tenantId: 'ten_b', messages: 2 });
    expect(window.size).toBe(3);
    window.note('ten_b');
    expect(window.busiest()).toEqual({ tenantId: 'ten_b', messages: 3 });
  });

  it('tells how long ago a tenant other than a given one was taken, or null if none was', () => {
    let now = 1_000;
    const window = new TenantWindow(2, () => now);
    expect(window.otherTenantAgoMs('ten_a')).toBeNull();
    window.note('ten_a');
    expect(window.otherTenantAgoMs('ten_a')).toBeNull();
    window.note('ten_b');
    now = 1_500;
    window.note('ten_a');
    window.note('ten_a');
    now = 4_000;
    // ten_b is still remembered although the ring has forgotten it.
    expect(window.otherTenantAgoMs('ten_a')).toBe(3_000);
    expect(window.otherTenantAgoMs('ten_b')).toBe(2_500);
    expect(window.otherTenantAgoMs('ten_c')).toBe(2_500);
  });
});
