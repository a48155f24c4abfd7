/**
 * Bytes several operations may hold together, handed out first come, first served: one that does
 * not fit waits until enough was given back. A request larger than the whole budget takes all of
 * it (it waits for an empty budget and then runs alone).
 */
export class MemoryBudget {
  private reserved = 0;
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(private budget: number) {}

  setBudget(bytes: number): void {
    this.budget = bytes;
    this.admit();
  }

  /** Waits for `bytes` (at most the whole budget) and returns the function that gives them back. */
  async acquire(bytes: number): Promise<() => void> {
    const need = Math.min(Math.max(0, bytes), this.budget);
    await new Promise<void>((go) => {
      this.waiting.push({ bytes: need, go });
      this.admit();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved -= need;
      this.admit();
    };
  }

  get inUse(): number {
    return this.reserved;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.reserved + this.waiting[0].bytes <= this.budget) {
      const next = this.waiting.shift()!;
      this.reserved += next.bytes;
      next.go();
    }
  }
}
