/**
 * Each tenant's deliveries waiting for their endpoint's slot, so that the intake takes no more of
 * a tenant's messages than its endpoints can start on (ADR 0032): the stored-body check is faster
 * than a hot endpoint, and deliveries taken in faster than its slots free would wait past the
 * busy delay and go to the schedule.
 */
export class TenantSlotWaits {
  private readonly waitsByTenant = new Map<string, number>();
  private wakers: (() => void)[] = [];

  /** How many of the tenant's deliveries wait for a slot now. */
  of(tenantId: string): number {
    return this.waitsByTenant.get(tenantId) ?? 0;
  }

  /** Counts one delivery's wait; the function returned ends it (once, however often called). */
  begin(tenantId: string): () => void {
    this.waitsByTenant.set(tenantId, this.of(tenantId) + 1);
    let waiting = true;
    return () => {
      if (!waiting) {
        return;
      }
      waiting = false;
      const left = this.of(tenantId) - 1;
      if (left > 0) {
        this.waitsByTenant.set(tenantId, left);
      } else {
        this.waitsByTenant.delete(tenantId);
      }
      const wake = this.wakers;
      this.wakers = [];
      wake.forEach((resolve) => resolve());
    };
  }

  /** Resolves when any tenant's wait ends. */
  anyEnded(): Promise<void> {
    return new Promise<void>((resolve) => this.wakers.push(resolve));
  }
}
