import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  rateLimitHeaders,
  retryAfterSeconds,
} from '../../src/platform/ratelimit/index.ts';
import { RedisRateLimitStore } from '../../src/platform/ratelimit/redis.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';

const DEFAULT = { name: 'default', quota: 3000, windowSeconds: 60 };
const UPLOADS = { name: 'uploads', quota: 5000, windowSeconds: 86400 };

/**
 * A store under test, and how time passes for it: the memory store runs on a clock of the test's
 * own; the Redis store keeps Redis's clock, so its buckets are made older instead.
 */
interface StoreUnderTest {
  store: RateLimitStore;
  elapse(subject: string, ms: number): Promise<void>;
}

/** The same behaviour is required of both stores. */
function storeContract(name: string, make: () => StoreUnderTest | null) {
  describe(`${name} rate-limit store`, () => {
    let store: RateLimitStore | null;
    let elapse: StoreUnderTest['elapse'];
    before(() => {
      const made = make();
      store = made?.store ?? null;
      if (made) elapse = made.elapse;
    });
    after(() => store?.close());
    const subject = () => `test-${Math.random()}`;

    it('takes one token per request and reports the rest', async (t) => {
      if (!store) return t.skip('REDIS_URL not set: Redis store not tested');
      const s = subject();
      const first = await store.consume(s, [DEFAULT]);
      assert.equal(first.allowed, true);
      assert.equal(first.states[0].remaining, 2999);
      assert.equal(first.states[0].resetSeconds, 0);
    });

    it('gives a token back, never above the quota', async (t) => {
      if (!store) return t.skip('REDIS_URL not set: Redis store not tested');
      const s = subject();
      const tiny = { name: 'sign-in', quota: 2, windowSeconds: 86400 };
      assert.ok((await store.consume(s, [tiny])).allowed);
      assert.ok((await store.consume(s, [tiny])).allowed);
      assert.equal((await store.consume(s, [tiny])).allowed, false);
      await store.giveBack(s, [tiny]);
      assert.ok((await store.consume(s, [tiny])).allowed, 'the token given back is taken again');
      const other = subject();
      await store.giveBack(other, [tiny]);
      await store.giveBack(other, [tiny]);
      assert.equal((await store.peek(other, [tiny]))[0].remaining, 2, 'a full bucket stays at its quota');
    });

    it('refuses when a bucket is empty and takes from no bucket then', async (t) => {
      if (!store) return t.skip('REDIS_URL not set: Redis store not tested');
      const s = subject();
      // A day's window: the default policy refills 50 tokens a second, so on a loaded machine a
      // 20 ms pause between the calls would refill the token this test looks for.
      const slow = { name: 'default', quota: 3000, windowSeconds: 86400 };
      const tiny = { name: 'uploads', quota: 2, windowSeconds: 86400 };
      assert.ok((await store.consume(s, [slow, tiny])).allowed);
      assert.ok((await store.consume(s, [slow, tiny])).allowed);
      const refused = await store.consume(s, [slow, tiny]);
      assert.equal(refused.allowed, false);
      assert.ok(refused.waitSeconds > 40000 && refused.waitSeconds <= 43200, String(refused.waitSeconds));
      assert.equal(refused.states[0].remaining, 2998, 'default was not charged for the refused request');
      assert.equal(refused.states[1].remaining, 0);
      assert.ok(refused.states[1].resetSeconds > 0);
    });

    it('refills continuously', async (t) => {
      if (!store) return t.skip('REDIS_URL not set: Redis store not tested');
      const s = subject();
      const fast = { name: 'default', quota: 2, windowSeconds: 1 };
      await store.consume(s, [fast]);
      await store.consume(s, [fast]);
      assert.equal((await store.consume(s, [fast])).allowed, false);
      await elapse(s, 600);
      assert.equal((await store.consume(s, [fast])).allowed, true);
    });

    it('is exact under concurrency', async (t) => {
      if (!store) return t.skip('REDIS_URL not set: Redis store not tested');
      const s = subject();
      const q = { name: 'default', quota: 50, windowSeconds: 3600 };
      const results = await Promise.all(Array.from({ length: 80 }, () => store!.consume(s, [q])));
      assert.equal(results.filter((r) => r.allowed).length, 50);
    });
  });
}

storeContract('memory', () => {
  let now = Date.now();
  return {
    store: new MemoryRateLimitStore(() => now),
    elapse: async (_subject, ms) => {
      now += ms;
    },
  };
});
storeContract('Redis', () => {
  if (!process.env.REDIS_URL) return null;
  const prefix = `rltest:${process.pid}:`;
  const store = new RedisRateLimitStore(process.env.REDIS_URL, prefix);
  return {
    store,
    elapse: async (subject, ms) => {
      for (const key of await store.redis.keys(`${prefix}${subject}:*`)) {
        const at = Number(await store.redis.hget(key, 'at'));
        await store.redis.hset(key, 'at', String(at - ms));
      }
    },
  };
});

describe('rate-limit headers', () => {
  it('uses the structured-field syntax of the spec', () => {
    const h = rateLimitHeaders({
      allowed: true,
      waitSeconds: 0,
      states: [
        { policy: DEFAULT, remaining: 2999, resetSeconds: 0 },
        { policy: UPLOADS, remaining: 0, resetSeconds: 18 },
      ],
    });
    assert.equal(h['x-ratelimit-policy'], '"default";q=3000;w=60, "uploads";q=5000;w=86400');
    assert.equal(h['x-ratelimit'], '"default";r=2999;t=0, "uploads";r=0;t=18');
  });

  it('never advises less than the real wait', () => {
    for (let i = 0; i < 100; i++) {
      const wait = Math.random() * 20;
      const r = retryAfterSeconds(wait);
      assert.ok(Number.isInteger(r) && r >= wait && r <= Math.ceil(wait) + 1);
    }
    assert.equal(
      retryAfterSeconds(17.28, () => 0),
      18,
    );
  });
});

describe('rate limiting over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: 'default=20/60' } });
  });
  after(() => t.close());

  it('shares one bucket between the keys of an organization and answers 429 with headers', async () => {
    const org = t.seed.organizations[0].reference;
    const second = (await operator(t, 'POST', `/organizations/${org}/api-keys`, { name: 'second' })).data.apiKey.secret;
    const other = await call(t, 'GET', '/v2/organization', { key: t.otherKey });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await call(t, 'GET', '/v2/organization', { key: i % 2 ? second : t.key })).statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 20);
    const limited = await call(t, 'GET', '/v2/organization', { key: second });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.data.code, 'rate_limited');
    assert.match(limited.data.message, /Retry-After/);
    const retry = Number(limited.headers['retry-after']);
    assert.ok(retry >= 3 && retry <= 5, `Retry-After ${retry}`);
    assert.equal(limited.headers['x-ratelimit-policy'], '"default";q=20;w=60');
    assert.match(String(limited.headers['x-ratelimit']), /^"default";r=0;t=[1-3]$/);
    assert.equal(other.statusCode, 200);
    const otherAfter = await call(t, 'GET', '/v2/organization', { key: t.otherKey });
    assert.equal(otherAfter.statusCode, 200, 'another organization has its own bucket');
  });

  it('applies an operator override of the quota at once', async () => {
    const org = t.seed.organizations[1].reference;
    const set = await operator(t, 'PUT', `/organizations/${org}/rate-limits`, {
      default: { quota: 1000, windowSeconds: 60 },
    });
    assert.equal(set.statusCode, 200);
    const res = await call(t, 'GET', '/v2/organization', { key: t.otherKey });
    assert.equal(res.headers['x-ratelimit-policy'], '"default";q=1000;w=60');
  });
});
