import type { Config } from '../../config.ts';
import { MemoryRateLimitStore } from './memory.ts';
import type { ConsumeResult, RateLimitStore } from './types.ts';

export * from './types.ts';
export { MemoryRateLimitStore };

/** ioredis (~8 MB in the process) is loaded only when REDIS_URL names a server. */
export async function createRateLimitStore(config: Pick<Config, 'redisUrl'>): Promise<RateLimitStore> {
  if (!config.redisUrl) return new MemoryRateLimitStore();
  const { RedisRateLimitStore } = await import('./redis.ts');
  return new RedisRateLimitStore(config.redisUrl);
}

/** `X-RateLimit-Policy` and `X-RateLimit` in the spec's structured-field syntax. */
export function rateLimitHeaders(result: ConsumeResult): Record<string, string> {
  return {
    'x-ratelimit-policy': result.states
      .map((s) => `"${s.policy.name}";q=${s.policy.quota};w=${s.policy.windowSeconds}`)
      .join(', '),
    'x-ratelimit': result.states.map((s) => `"${s.policy.name}";r=${s.remaining};t=${s.resetSeconds}`).join(', '),
  };
}

/** Whole seconds, never below the real wait, plus up to a second of jitter so clients spread out. */
export function retryAfterSeconds(waitSeconds: number, random = Math.random): number {
  return Math.max(1, Math.ceil(waitSeconds + random()));
}
