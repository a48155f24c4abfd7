import type { RateLimitPolicy } from '../../config.ts';
import { type BucketState, type ConsumeResult, type RateLimitStore, describeBuckets, refill } from './types.ts';

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets of one process. */
export class MemoryRateLimitStore implements RateLimitStore {
  private buckets = new Map<string, Bucket>();
  constructor(private readonly nowMs: () => number = () => performance.timeOrigin + performance.now()) {}

  private current(subject: string, p: RateLimitPolicy, now: number): Bucket {
    const key = `${subject}:${p.name}:${p.quota}:${p.windowSeconds}`;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: p.quota, at: now };
      this.buckets.set(key, b);
    } else {
      b.tokens = refill(b.tokens, now - b.at, p);
      b.at = now;
    }
    return b;
  }

  async consume(subject: string, policies: RateLimitPolicy[]): Promise<ConsumeResult> {
    const now = this.nowMs();
    const buckets = policies.map((p) => this.current(subject, p, now));
    const result = describeBuckets(
      policies,
      buckets.map((b) => b.tokens),
      true,
    );
    if (result.allowed) for (const b of buckets) b.tokens -= 1;
    return result;
  }

  async peek(subject: string, policies: RateLimitPolicy[]): Promise<BucketState[]> {
    const now = this.nowMs();
    return describeBuckets(
      policies,
      policies.map((p) => this.current(subject, p, now).tokens),
      false,
    ).states;
  }

  async giveBack(subject: string, policies: RateLimitPolicy[]): Promise<void> {
    const now = this.nowMs();
    for (const p of policies) {
      const b = this.current(subject, p, now);
      b.tokens = Math.min(p.quota, b.tokens + 1);
    }
  }

  async close(): Promise<void> {}
}
