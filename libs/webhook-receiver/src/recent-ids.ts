/**
 * The ids of the most recent events, at most `capacity` of them. Delivery is at least once, so a
 * receiver sees some events twice (a retry after a lost answer); duplicates arrive close together,
 * so remembering the latest ids is enough, and the bound keeps memory flat however long it runs.
 * A receiver with several replicas or restarts needs a shared store (a unique key in its
 * database) instead.
 */
export class RecentIds {
  // A Set iterates in insertion order, so its first element is always the oldest id.
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError('capacity must be a positive integer');
    }
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.ids.has(id)) {
      return;
    }
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next();
      if (!oldest.done) {
        this.ids.delete(oldest.value);
      }
    }
  }
}
