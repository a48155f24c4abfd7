import { Redis } from 'ioredis';
import type { RateLimitPolicy } from '../../config.ts';
import { type BucketState, type ConsumeResult, type RateLimitStore, describeBuckets } from './types.ts';

// All buckets of one request in one script: atomic across every API process, on Redis's own clock.
// ARGV: take (1 takes a token, 0 only looks, -1 gives one back), then quota and window per key. Returns the tokens before taking, scaled by 1000.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local take = tonumber(ARGV[1])
local tokens = {}
local ok = true
for i, key in ipairs(KEYS) do
  local q = tonumber(ARGV[i * 2])
  local w = tonumber(ARGV[i * 2 + 1])
  local b = redis.call('HMGET', key, 'tokens', 'at')
  local tk = tonumber(b[1])
  local at = tonumber(b[2])
  if tk == nil then tk = q; at = now end
  tk = math.min(q, tk + (now - at) / 1000 * q / w)
  tokens[i] = tk
  if tk < 1 then ok = false end
end
local out = {}
for i, key in ipairs(KEYS) do
  local q = tonumber(ARGV[i * 2])
  local w = tonumber(ARGV[i * 2 + 1])
  local tk = tokens[i]
  if ok and take == 1 then tk = tk - 1 end
  if take == -1 then tk = math.min(q, tk + 1) end
  redis.call('HSET', key, 'tokens', tostring(tk), 'at', tostring(now))
  redis.call('PEXPIRE', key, w * 1000 + 1000)
  out[i] = tostring(tokens[i])
end
return out
`;

export class RedisRateLimitStore implements RateLimitStore {
  readonly redis: Redis;
  constructor(
    url: string,
    private readonly prefix = 'rl:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => {});
    this.redis.defineCommand('podBucket', { lua: SCRIPT });
  }

  private async run(subject: string, policies: RateLimitPolicy[], take: 1 | 0 | -1): Promise<number[]> {
    const keys = policies.map((p) => `${this.prefix}${subject}:${p.name}:${p.quota}:${p.windowSeconds}`);
    const args = [take, ...policies.flatMap((p) => [p.quota, p.windowSeconds])];
    const raw = (await (this.redis as any).podBucket(keys.length, ...keys, ...args)) as string[];
    return raw.map(Number);
  }

  async consume(subject: string, policies: RateLimitPolicy[]): Promise<ConsumeResult> {
    return describeBuckets(policies, await this.run(subject, policies, 1), true);
  }

  async peek(subject: string, policies: RateLimitPolicy[]): Promise<BucketState[]> {
    return describeBuckets(policies, await this.run(subject, policies, 0), false).states;
  }

  async giveBack(subject: string, policies: RateLimitPolicy[]): Promise<void> {
    await this.run(subject, policies, -1);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
