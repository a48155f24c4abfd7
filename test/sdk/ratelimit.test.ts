import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError } from '../../packages/sdk/src/index.ts';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type SdkServer, startSdkServer } from './helpers.ts';

// 5 requests per 2 seconds: the sixth in a burst is throttled with Retry-After of a second or two.
// The buckets run on a clock of the test's own: time passes only when the test says so, however
// slowly the machine runs the requests.
let server: SdkServer;
let nowMs = Date.now();
before(async () => {
  server = await startSdkServer({
    env: { RATE_LIMITS: 'default=5/2' },
    rateLimits: new MemoryRateLimitStore(() => nowMs),
  });
});
after(async () => {
  await server?.close();
});

/** The bucket is full again, so each test starts from the same state. */
const refill = () => {
  nowMs += 2100;
};

/** Every answer passes through here; a 429's Retry-After passes on the buckets' clock too. */
const observe = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
  const res = await fetch(input, init);
  if (res.status === 429) nowMs += Number(res.headers.get('retry-after')) * 1000;
  return res;
};

test('429: the client waits at least Retry-After and then succeeds', async () => {
  refill();
  const statuses: Array<{ status: number; retryAfter: string | null; at: number }> = [];
  const observing: typeof fetch = async (input, init) => {
    const res = await observe(input, init);
    statuses.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
    return res;
  };
  const client = server.clientWith({ fetch: observing });
  for (let i = 0; i < 8; i++) await client.organization.get();
  const throttled = statuses.findIndex((s) => s.status === 429);
  assert.ok(throttled >= 0, `a 429 was seen: ${statuses.map((s) => s.status)}`);
  const retryAfter = Number(statuses[throttled].retryAfter);
  assert.ok(retryAfter >= 1);
  const next = statuses[throttled + 1];
  assert.ok(next, 'the call was retried');
  assert.ok(
    next.at - statuses[throttled].at >= retryAfter * 1000,
    `waited ${next.at - statuses[throttled].at} ms for Retry-After ${retryAfter}`,
  );
  assert.equal(statuses.filter((s) => s.status === 200).length, 8);
  const state = client.rateLimit;
  assert.deepEqual(state?.policies, [{ name: 'default', quota: 5, windowSeconds: 2 }]);
});

test('opt-out: retryOnRateLimit false throws the 429 ApiError with retryAfter', async () => {
  refill();
  const client = server.clientWith({ retryOnRateLimit: false, fetch: observe });
  let err: unknown;
  for (let i = 0; i < 10 && !err; i++) await client.organization.get().catch((e: unknown) => (err = e));
  assert.ok(err instanceof ApiError, 'throttled within 10 calls');
  assert.equal(err.status, 429);
  assert.equal(err.code, 'rate_limited');
  assert.ok((err.retryAfter ?? 0) >= 1);
  assert.ok(err.requestId);
  assert.equal(client.rateLimit?.limits[0].remaining, 0, 'the 429 carried the headers too');
  assert.ok((client.rateLimit?.limits[0].resetSeconds ?? 0) > 0);
});

test('cap: a Retry-After above maxRateLimitWaitSeconds is not waited for', async () => {
  refill();
  const statuses: number[] = [];
  const observing: typeof fetch = async (input, init) => {
    const res = await observe(input, init);
    statuses.push(res.status);
    return res;
  };
  const client = server.clientWith({ maxRateLimitWaitSeconds: 0, fetch: observing });
  let err: unknown;
  for (let i = 0; i < 10 && !err; i++) await client.organization.get().catch((e: unknown) => (err = e));
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 'rate_limited');
  assert.equal(statuses.at(-1), 429, 'the throttled call was not repeated');
  assert.equal(statuses.filter((s) => s === 429).length, 1);
});

test('a throttled POST is retried under the same Idempotency-Key', async () => {
  refill();
  const keys: string[] = [];
  const statuses: number[] = [];
  const observing: typeof fetch = async (input, init) => {
    const h = new Headers(init?.headers);
    if (init?.method === 'POST') keys.push(h.get('idempotency-key') ?? '');
    const res = await observe(input, init);
    statuses.push(res.status);
    return res;
  };
  const client = server.clientWith({ fetch: observing });
  for (let i = 0; i < 5; i++) await client.organization.get();
  const res = await client.auth.validate();
  assert.equal(typeof res.message, 'string');
  assert.ok(statuses.includes(429));
  assert.ok(keys.length >= 2 && keys.every((k) => k === keys[0] && k.length > 0), `same key on every attempt: ${keys}`);
});
