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
});
