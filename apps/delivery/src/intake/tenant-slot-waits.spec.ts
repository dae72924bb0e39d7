import { TenantSlotWaits } from './tenant-slot-waits';

describe('TenantSlotWaits', () => {
  it("counts each tenant's waits apart, and an ended wait once however often it is ended", () => {
    const waits = new TenantSlotWaits();
    const first = waits.begin('ten_a');
    waits.begin('ten_a');
    waits.begin('ten_b');
    expect(waits.of('ten_a')).toBe(2);
    expect(waits.of('ten_b')).toBe(1);

    first();
    first();
    expect(waits.of('ten_a')).toBe(1);
    expect(waits.of('ten_b')).toBe(1);
    expect(waits.of('ten_c')).toBe(0);
  });

  it('wakes whoever waits for a change when a wait ends, and not before', async () => {
    const waits = new TenantSlotWaits();
    const end = waits.begin('ten_a');
    let woken = false;
    const changed = waits.anyEnded().then(() => (woken = true));

    await Promise.resolve();
    expect(woken).toBe(false);

    end();
    await changed;
    expect(woken).toBe(true);
    expect(waits.of('ten_a')).toBe(0);
  });
});
