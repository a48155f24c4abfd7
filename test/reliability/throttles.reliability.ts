import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../src/platform/ratelimit/index.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { recordFigures } from './support.ts';

describe('sign-in throttles under attack', () => {
  let t: TestApp;
  before(async () => {
    // Buckets that never refill: counts stay exact however slow the machine is.
    t = await createTestApp({ rateLimits: new MemoryRateLimitStore(() => 0) });
  });
  after(() => t.close());

  it('150 concurrent wrong passwords, a victim elsewhere, and a password sprayer', async () => {
    const email = 'target@demo-cases.example';
    await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/users`, {
      email,
      password: 'the-real-password',
    });
    const race = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        t.s.dashboard.signIn({ email, password: `guess-${i}`, ip: '203.0.113.5' }).then(
          () => 200,
          (e) => e.status as number,
        ),
      ),
    );
    const checks = race.filter((s) => s === 401).length;
    const owner = await t.s.dashboard.signIn({ email, password: 'the-real-password', ip: '192.0.2.44' }).then(
      () => 'signed in',
      (e) => `refused ${e.status}`,
    );
    let sprayed = 0;
    let slowedAfter = 0;
    for (let i = 0; i < 40 && !slowedAfter; i++) {
      const status = await t.s.dashboard
        .signIn({ email: `sprayed-${i}@example.com`, password: 'Summer2026!', ip: '198.51.100.9' })
        .then(
          () => 200,
          (e) => e.status as number,
        );
      sprayed++;
      if (status === 429) slowedAfter = i;
    }
    recordFigures('throttles', {
      signInChecks: checks,
      notes: [
        `sign-in race: ${checks} password checks of 150 concurrent wrong passwords (limit 5 per network)`,
        `victim on another network during the attack: ${owner}`,
        `password spray from one network: throttled after ${slowedAfter} failed sign-ins (limit 20 a minute)`,
      ],
    });
    // 300 invalid keys in a burst from one client: the first 60 a minute are answered 401, the rest 429.
    const keyStatuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const res = await call(t, 'GET', '/v2/orders', { key: `sk_test_guess${String(i).padStart(20, '0')}` });
      keyStatuses.set(res.statusCode, (keyStatuses.get(res.statusCode) ?? 0) + 1);
    }
    recordFigures('throttles', {
      notes: [
        `invalid keys from one address: 300 sent, ${keyStatuses.get(401) ?? 0} answered 401, ${keyStatuses.get(429) ?? 0} refused 429 (limit 60 a minute)`,
      ],
    });
    assert.equal(keyStatuses.get(401), 60);
    assert.ok(checks <= 5, `${checks} checks`);
    assert.equal(owner, 'signed in');
    assert.ok(slowedAfter > 0 && slowedAfter <= 20, `sprayed ${sprayed}`);
  });
});
