import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GLOBAL_FREE_NETWORKS, clientNetwork } from '../../src/modules/dashboard/throttle.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

/** The status a sign-in ends with: 200, or the error's. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { status: number }) => e.status,
  );

describe('sign-in throttle', () => {
  let t: TestApp;
  const user = async (email: string, password: string) => {
    await operator(t, 'POST', `/organizations/${t.seed.organizations[0].reference}/users`, { email, password });
  };
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('60 concurrent failures from one network get exactly the 20 password checks of its minute', async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        outcome(t.s.dashboard.signIn({ email: `burst-${i}@example.com`, password: 'x', ip: `198.51.100.${i % 250}` })),
      ),
    );
    assert.equal(results.filter((s) => s === 401).length, 20, 'password checks');
    assert.equal(results.filter((s) => s === 429).length, 40);
  });

  it('a success gives its token back: an office signing in all day is never held back', async () => {
    await user('office@demo-cases.example', 'office-password-1');
    for (let i = 0; i < 25; i++) {
      const status = await outcome(
        t.s.dashboard.signIn({ email: 'office@demo-cases.example', password: 'office-password-1', ip: '192.0.2.50' }),
      );
      assert.equal(status, 200, `sign-in ${i + 1}`);
    }
  });

  it('failures from a few networks do not lock the owner out everywhere; from many they do', async () => {
    const email = 'spread@demo-cases.example';
    await user(email, 'owners-password-1');
    // 10 networks, each using its 5 free failures: 50 failures in all.
    for (let n = 0; n < 10; n++)
      for (let i = 0; i < 5; i++)
        assert.equal(await outcome(t.s.dashboard.signIn({ email, password: 'guess', ip: `203.0.${n}.9` })), 401);
    assert.equal(
      await outcome(t.s.dashboard.signIn({ email, password: 'owners-password-1', ip: '192.0.2.77' })),
      200,
      'the owner signs in from home',
    );
    // A success clears the count: one failure each from enough networks after it.
    t.clock.advance(1000);
    for (let n = 10; n < 10 + GLOBAL_FREE_NETWORKS; n++)
      await outcome(t.s.dashboard.signIn({ email, password: 'guess', ip: `203.0.${n}.9` }));
    assert.equal(
      await outcome(t.s.dashboard.signIn({ email, password: 'owners-password-1', ip: '192.0.2.78' })),
      429,
      `failures from ${GLOBAL_FREE_NETWORKS} networks slow every network`,
    );
  });

  it('groups IPv6 clients by /56, IPv4 by /24', () => {
    assert.equal(clientNetwork('2001:db8:aa:bb00::1'), '2001:db8:aa:bb00::/56');
    assert.equal(clientNetwork('2001:0db8:00aa:bbff:1:2:3:4'), '2001:db8:aa:bb00::/56');
    assert.notEqual(clientNetwork('2001:db8:aa:cc00::1'), clientNetwork('2001:db8:aa:bb00::1'));
    assert.equal(clientNetwork('2001:db8::1'), '2001:db8:0:0::/56');
    assert.equal(clientNetwork('::ffff:198.51.100.7'), '198.51.100.0/24');
    assert.equal(clientNetwork('198.51.100.200'), '198.51.100.0/24');
  });
});
