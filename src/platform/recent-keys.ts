/**
 * The most recently seen keys, at most `max` of them (least recently seen dropped first): for
 * "say it once per key" where the keys come from outside and a flood must not grow memory. A key
 * seen again counts as fresh, so one that keeps coming stays remembered while older ones go.
 */
export class RecentKeys {
  private readonly keys = new Map<string, true>();

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new Error('RecentKeys needs room for one key at least');
  }

  /** True the first time a key is seen (or the first time since it was dropped); remembers it. */
  firstSight(key: string): boolean {
    const known = this.keys.delete(key);
    this.keys.set(key, true);
    if (!known && this.keys.size > this.max) this.keys.delete(this.keys.keys().next().value!);
    return !known;
  }

  get size(): number {
    return this.keys.size;
  }
}
