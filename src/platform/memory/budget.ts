/**
 * Bytes several operations may hold together, handed out in arrival order: one that does not fit
 * waits until enough was given back. A request larger than the whole budget takes all of it (it
 * waits for an empty budget and then runs alone). With an owner (an organization), an owner that
 * already holds something gets no more than half of the budget, so one tenant's stalled uploads
 * cannot hold all of it; later arrivals of other owners then go first.
 */
export class MemoryBudget {
  private reserved = 0;
  private readonly held = new Map<string, number>();
  private readonly waiting: Array<{ bytes: number; owner: string | null; go: () => void }> = [];

  constructor(private budget: number) {}

  setBudget(bytes: number): void {
    this.budget = bytes;
    this.admit();
  }

  /** Waits for `bytes` (at most the whole budget) and returns the function that gives them back. */
  async acquire(bytes: number, owner: string | null = null): Promise<() => void> {
    const need = Math.min(Math.max(0, bytes), this.budget);
    await new Promise<void>((go) => {
      this.waiting.push({ bytes: need, owner, go });
      this.admit();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved -= need;
      if (owner !== null) {
        const left = (this.held.get(owner) ?? 0) - need;
        if (left > 0) this.held.set(owner, left);
        else this.held.delete(owner);
      }
      this.admit();
    };
  }

  get inUse(): number {
    return this.reserved;
  }

  private overShare(w: { bytes: number; owner: string | null }): boolean {
    if (w.owner === null) return false;
    const has = this.held.get(w.owner) ?? 0;
    return has > 0 && has + w.bytes > this.budget / 2;
  }

  private admit(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i];
      if (this.overShare(w)) {
        i++; // waits for its own owner's release; others behind it may go
        continue;
      }
      // Arrival order among the rest: nobody overtakes the first one that does not fit.
      if (this.reserved + w.bytes > this.budget) return;
      this.waiting.splice(i, 1);
      this.reserved += w.bytes;
      if (w.owner !== null) this.held.set(w.owner, (this.held.get(w.owner) ?? 0) + w.bytes);
      w.go();
    }
  }
}
