import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueue } from '../../src/platform/jobs/queue.ts';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { expectError } from '../orders/helpers.ts';

const advance = (t: TestApp, clock: Record<string, string>) =>
  call(t, 'POST', '/v2/test-helpers/clock/advance', { body: { clock } });

describe('a test clock at the far future', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('refuses a time the database cannot hold with 400 clock_out_of_range, and changes nothing', async () => {
    t.clock.set('2026-07-01T08:00:00Z');
    // A job due in a day: advancing moves it back by the clock's step, which must stay storable.
    await enqueue(
      t.db,
      t.clock,
      'test.later',
      {},
      {
        organizationId: t.seed.organizations[0].reference,
        runAt: new Date('2026-07-02T08:00:00Z'),
      },
    );
    const steps: Record<string, string>[] = [
      { to: '9999-12-31T23:59:59Z' },
      { advanceBy: 'P8000Y' },
      { advanceBy: 'P1001Y' },
    ];
    for (const clock of steps) {
      const res = await advance(t, clock);
      expectError(res, 400, 'clock_out_of_range');
      assert.match(res.data.message, /at most 1000 years past real time \(3026-07-01T08:00:00\.000Z\)/);
    }
    const clock = (await call(t, 'GET', '/v2/test-helpers/clock')).data.clock;
    assert.equal(clock.frozen, false, 'the clock did not move');
    const far = await advance(t, { to: '3026-07-01T08:00:00Z' });
    assert.equal(far.statusCode, 200, far.body);
    assert.equal(far.data.clock.now, '3026-07-01T08:00:00.000Z');
  });
});
