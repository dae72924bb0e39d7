import { mayRunAheadOfClaims, TenantsTaken } from './tenants-taken';

describe('TenantsTaken', () => {
  it('says how long ago a tenant other than the one asked about was taken', () => {
    let now = 1_000;
    const taken = new TenantsTaken(() => now);
    expect(taken.otherTenantAgoMs('ten_a')).toBeNull();
    taken.note('ten_a');
    expect(taken.otherTenantAgoMs('ten_a')).toBeNull();
    taken.note('ten_b');
    now += 30;
    taken.note('ten_a');
    now += 20;
    expect(taken.otherTenantAgoMs('ten_a')).toBe(50);
    expect(taken.otherTenantAgoMs('ten_b')).toBe(20);
  });

  it('keeps only the last two distinct tenants: a third pushes the oldest out', () => {
    let now = 0;
    const taken = new TenantsTaken(() => now);
    taken.note('ten_a');
    now = 10;
    taken.note('ten_b');
    now = 20;
    taken.note('ten_c');
    now = 25;
    expect(taken.otherTenantAgoMs('ten_c')).toBe(15);
    expect(taken.otherTenantAgoMs('ten_b')).toBe(5);
    expect(taken.otherTenantAgoMs('ten_a')).toBe(5);
  });
});

describe('mayRunAheadOfClaims', () => {
  it('lets a tenant run ahead when no other was ever taken, or none for longer than the bound', () => {
    expect(mayRunAheadOfClaims(null, 1_000)).toBe(true);
    expect(mayRunAheadOfClaims(1_001, 1_000)).toBe(true);
  });

  it('keeps it one at a time while another tenant was taken within the bound', () => {
    expect(mayRunAheadOfClaims(1_000, 1_000)).toBe(false);
    expect(mayRunAheadOfClaims(0, 1_000)).toBe(false);
  });
});
