import type { RateLimitPolicy } from '../../config.ts';

export interface BucketState {
  policy: RateLimitPolicy;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the next whole token, 0 while tokens remain. */
  resetSeconds: number;
}

export interface ConsumeResult {
  allowed: boolean;
  states: BucketState[];
  /** Exact seconds until every empty bucket holds a token again (0 when allowed). */
  waitSeconds: number;
}

/** Continuously refilling token buckets; one call takes a token from every bucket or from none. */
export interface RateLimitStore {
  consume(subject: string, policies: RateLimitPolicy[]): Promise<ConsumeResult>;
  /** Current state without taking a token (dashboard usage). */
  peek(subject: string, policies: RateLimitPolicy[]): Promise<BucketState[]>;
  /** Puts back a token taken by `consume` (never above the quota): the attempt turned out free. */
  giveBack(subject: string, policies: RateLimitPolicy[]): Promise<void>;
  close(): Promise<void>;
}

/** Shared arithmetic of both stores, so memory and Redis answer alike. */
export function refill(tokens: number, elapsedMs: number, p: RateLimitPolicy): number {
  return Math.min(p.quota, tokens + (elapsedMs / 1000) * (p.quota / p.windowSeconds));
}

export function describeBuckets(policies: RateLimitPolicy[], tokens: number[], take: boolean): ConsumeResult {
  const allowed = tokens.every((t) => t >= 1);
  const after = tokens.map((t) => (allowed && take ? t - 1 : t));
  let waitSeconds = 0;
  const states = policies.map((p, i) => {
    const rate = p.quota / p.windowSeconds;
    const t = after[i];
    const wait = t >= 1 ? 0 : (1 - t) / rate;
    if (!allowed && tokens[i] < 1) waitSeconds = Math.max(waitSeconds, wait);
    return { policy: p, remaining: Math.floor(t), resetSeconds: t >= 1 ? 0 : Math.ceil(wait) };
  });
  return { allowed, states, waitSeconds };
}
