import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp } from '../support/app.ts';
import { createOrder, orderBody, uploadImage } from '../orders/helpers.ts';
import { seeded, uploadSolid } from '../rendering/helpers.ts';
import { recordFigures } from './support.ts';

/** The attacker's receiver: headers at once, then one byte every 0.5 s, never finishing. */
async function trickler() {
  const timers = new Set<NodeJS.Timeout>();
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    timers.add(setInterval(() => res.write('.'), 500));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    async close() {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("fair background work: one organization's trickling webhooks cannot slow another's renders", () => {
  let t: TestApp;
  let attacker: Awaited<ReturnType<typeof trickler>>;
  before(async () => {
    t = await createTestApp({ env: { CALLBACK_TIMEOUT_MS: '1500', WEBHOOK_RETRY_SCHEDULE: '1' } });
    attacker = await trickler();
    t.s.worker.start();
  });
  after(async () => {
    await t.s.worker.stop();
    await attacker.close();
    await t.close();
  });

  /** Milliseconds from POST /renders to `completed`, for organization B. */
  async function renderLatency(shade: number): Promise<number> {
    const d = seeded(t);
    const image = await uploadSolid(t, { r: shade, g: 40, b: 90 }, t.otherKey);
    const started = Date.now();
    const res = await call(t, 'POST', '/v2/renders', {
      key: t.otherKey,
      body: { render: { compositionReference: d.cStudioIp15, imageReference: image } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const ref = res.data.render.reference;
    for (;;) {
      const r = await call(t, 'GET', `/v2/renders/${ref}`, { key: t.otherKey });
      if (r.data.render.status !== 'pending') {
        assert.equal(r.data.render.status, 'completed');
        return Date.now() - started;
      }
      if (Date.now() - started > 120_000) throw new Error('render never finished');
      await new Promise((r2) => setTimeout(r2, 25));
    }
  }

  it("keeps B's render latency near idle while A's 8 endpoints trickle, and loses no delivery", async () => {
    await renderLatency(10); // warm-up: templates, sharp
    const idle = Math.min(await renderLatency(20), await renderLatency(30));
    for (let i = 0; i < 8; i++) {
      const res = await call(t, 'POST', '/v2/webhook-endpoints', {
        body: { webhookEndpoint: { url: attacker.url, eventTypes: ['order.created'] } },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const image = await uploadImage(t);
    for (let i = 0; i < 4; i++) await createOrder(t, orderBody(t, image));
    // Wait until the attack holds delivery slots, then render for B.
    for (let i = 0; i < 100 && attacker.hits() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const underAttack = await renderLatency(40);
    const ratio = underAttack / Math.max(idle, 1);

    // Every delivery ends: succeeded, failed or (endpoint) disabled; none stays pending for ever.
    // A deadline rather than a count of polls: on a loaded machine every attempt is slower.
    let pending = Number.POSITIVE_INFINITY;
    for (const end = Date.now() + 180_000; Date.now() < end && pending > 0; ) {
      pending = (
        await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'pending'",
          [t.seed.organizations[0].reference],
        )
      )[0].n;
      // The test clock stands still: retries of attempts that timed out come due only as it moves.
      if (pending > 0) {
        t.clock.advance(1000);
        t.s.worker.nudge();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const states = await t.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 GROUP BY status',
      [t.seed.organizations[0].reference],
    );
    recordFigures('fairness', {
      itemsLost: pending,
      fairness: { 'trickling webhooks': Number(ratio.toFixed(2)) },
      notes: [
        `fairness: B's render ${underAttack} ms while A's 8 endpoints trickle, idle ${idle} ms (${ratio.toFixed(2)}x; target 2x); A's deliveries: ${states.map((s) => `${s.n} ${s.status}`).join(', ')}`,
      ],
    });
    const stuck = await t.db.query(
      `SELECT j.kind, j.status, j.attempts, j.run_at, j.locked_until FROM webhook_deliveries d
         JOIN jobs j ON j.payload->>'deliveryId' = d.id WHERE d.organization_id = $1 AND d.status = 'pending'`,
      [t.seed.organizations[0].reference],
    );
    assert.equal(pending, 0, `every delivery reached a final state; jobs of those pending: ${JSON.stringify(stuck)}`);
    // Queued behind A's work, B's render would wait ~40 s against 0.5 s idle; a loose bound keeps a
    // noisy machine from failing the run, the summary shows the exact ratio.
    assert.ok(underAttack < Math.max(2 * idle, idle + 1500), `render ${underAttack} ms against ${idle} ms idle`);
  });
});
