import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/platform/clock.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { seeded, uploadSolid } from '../rendering/helpers.ts';
import { recordEvent } from '../webhooks/helpers.ts';
import { prng, recordFigures } from './support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A receiver that answers 200 after `delayMs()` and notes when each webhook-id arrived. */
async function receiver(delayMs: () => number) {
  const arrived = new Map<string, number>();
  let delay = delayMs;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived.set(String(req.headers['webhook-id']), Date.now());
      setTimeout(() => res.writeHead(200).end('ok'), delay());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrived,
    answerAtOnce: () => {
      delay = () => 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A port nothing listens on: every connection is refused at once. */
async function refusingUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/hook`;
}

describe("fair background work: one organization's attack leaves another's latency near idle", () => {
  let t: TestApp;
  let ticker: NodeJS.Timeout;
  const ratios: Record<string, number> = {};
  const notes: string[] = [];
  let lost = 0;

  before(async () => {
    // The clock follows real time, so retries and back-offs come due as they would in production.
    const clock = new ManualClock();
    let last = Date.now();
    ticker = setInterval(() => {
      const now = Date.now();
      clock.advance(now - last);
      last = now;
    }, 10);
    // B reads as fast as it can for 15 s: on a quick machine that is over the default quota, and
    // this file measures background work, not the rate limiter.
    t = await createTestApp({
      clock,
      env: { CALLBACK_TIMEOUT_MS: '12000', WEBHOOK_RETRY_SCHEDULE: '5,30,60,600', RATE_LIMITS: 'default=1000000/60' },
    });
    t.s.worker.start();
  });
  after(async () => {
    recordFigures('tenant-attacks', { fairness: ratios, itemsLost: lost, notes });
    await t.s.worker.stop();
    clearInterval(ticker);
    await t.close();
  });

  const endpoint = async (url: string, key: string) => {
    const res = await call(t, 'POST', '/v2/webhook-endpoints', {
      key,
      body: { webhookEndpoint: { url, eventTypes: ['order.created'] } },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.data.webhookEndpoint.reference as string;
  };
  const orgB = () => t.seed.organizations[1].reference;
  const pendingJobs = async (kind: string, org: string) =>
    (
      await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND organization_id = $2 AND status IN ('pending', 'running')",
        [kind, org],
      )
    )[0].n;

  it("keeps B's render near idle while A's 30 renders are queued", async () => {
    const d = seeded(t);
    const render = async (key: string, shade: number) => {
      const image = await uploadSolid(t, { r: shade, g: 60, b: 120 }, key);
      const res = await call(t, 'POST', '/v2/renders', {
        key,
        body: { render: { compositionReference: d.cStudioIp15, imageReference: image } },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.data.render.reference as string;
    };
    const latency = async (shade: number) => {
      const started = Date.now();
      const ref = await render(t.otherKey, shade);
      t.s.worker.nudge();
      for (;;) {
        const r = await call(t, 'GET', `/v2/renders/${ref}`, { key: t.otherKey });
        if (r.data.render.status !== 'pending') {
          assert.equal(r.data.render.status, 'completed');
          return Date.now() - started;
        }
        if (Date.now() - started > 180_000) throw new Error('render never finished');
        await sleep(25);
      }
    };
    await latency(1); // warm-up: templates, sharp
    const idle = median([await latency(2), await latency(3), await latency(4)]);
    for (let i = 0; i < 30; i++) await render(t.key, 100 + i);
    t.s.worker.nudge();
    const a = t.seed.organizations[0].reference;
    const under: number[] = [];
    for (let i = 0; i < 3; i++) under.push(await latency(10 + i));
    const backlog = await pendingJobs('rendering.render', a);
    assert.ok(backlog > 0, "A's backlog was still queued while B rendered");
    const ratio = median(under) / Math.max(idle, 1);
    ratios['render backlog'] = Number(ratio.toFixed(2));
    notes.push(
      `fairness, render backlog: B's render ${median(under)} ms with A's 30 queued (${backlog} left after), idle ${idle} ms`,
    );
    for (const end = Date.now() + 300_000; Date.now() < end && (await pendingJobs('rendering.render', a)) > 0; )
      await sleep(250);
    lost += await pendingJobs('rendering.render', a);
    assert.ok(
      median(under) < Math.max(2 * idle, idle + 1000),
      `B's render ${median(under)} ms against ${idle} ms idle`,
    );
  });

  it("keeps B's webhook near idle while two organizations' slow receivers hold 160 deliveries", async () => {
    const rng = prng(48);
    const slow = await receiver(() => rng.int(2000, 9500));
    const fast = await receiver(() => 0);
    try {
      await endpoint(fast.url, t.otherKey);
      const created = await operator(t, 'POST', '/organizations', { name: 'Reliability Slow Receivers' });
      assert.equal(created.statusCode, 200, created.body);
      const c = created.data.organization.reference as string;
      const key = await operator(t, 'POST', `/organizations/${c}/api-keys`, { name: 'attack' });
      assert.equal(key.statusCode, 200, key.body);
      const attackers = [
        { org: t.seed.organizations[0].reference, key: t.key },
        { org: c, key: key.data.apiKey.secret as string },
      ];
      const latency = async () => {
        const event = await recordEvent(t, 'order.created', undefined, orgB());
        const started = Date.now();
        t.s.worker.nudge();
        for (; !fast.arrived.has(event.reference); await sleep(5))
          if (Date.now() - started > 180_000) throw new Error("B's webhook never arrived");
        return fast.arrived.get(event.reference)! - started;
      };
      await latency(); // warm-up
      const samples = async () =>
        median([await latency(), await latency(), await latency(), await latency(), await latency()]);
      const idleBefore = await samples();
      for (const x of attackers) {
        for (let i = 0; i < 8; i++) await endpoint(slow.url, x.key);
        for (let i = 0; i < 10; i++) await recordEvent(t, 'order.created', undefined, x.org);
      }
      t.s.worker.nudge();
      for (let i = 0; i < 200 && slow.arrived.size < 6; i++) await sleep(20);
      const under: number[] = [];
      for (let i = 0; i < 5; i++) {
        under.push(await latency());
        await sleep(300);
      }
      // The receivers recover: every delivery of the attack still arrives.
      slow.answerAtOnce();
      const pending = async () =>
        (
          await t.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ANY($1) AND status = 'pending'",
            [attackers.map((x) => x.org)],
          )
        )[0].n;
      for (const end = Date.now() + 240_000; Date.now() < end && (await pending()) > 0; ) await sleep(250);
      lost += await pending();
      // Idle before and after the attack, the quicker of the two: a busy machine does not flatter the ratio.
      const idle = Math.min(idleBefore, await samples());
      const ratio = median(under) / Math.max(idle, 1);
      ratios['slow deliveries'] = Number(ratio.toFixed(2));
      notes.push(
        `fairness, slow deliveries: B's webhook ${median(under)} ms while 2 organizations' 160 deliveries take 2-9.5 s each, idle ${idle} ms`,
      );
      assert.equal(await pending(), 0, 'every delivery of the attack arrived');
      assert.ok(median(under) < Math.max(2 * idle, idle + 300), `B's webhook ${median(under)} ms against ${idle} ms`);
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it("keeps B's reads near idle while A's 2,000 deliveries fail fast", async () => {
    const url = await refusingUrl();
    const endpoints: string[] = [];
    for (let i = 0; i < 10; i++) endpoints.push(await endpoint(url, t.key));
    const reads = async (ms: number) => {
      const took: number[] = [];
      for (const end = Date.now() + ms; Date.now() < end; ) {
        const started = process.hrtime.bigint();
        const res = await call(t, 'GET', '/v2/orders?limit=20', { key: t.otherKey });
        took.push(Number(process.hrtime.bigint() - started) / 1e6);
        assert.equal(res.statusCode, 200);
      }
      return took;
    };
    await reads(500); // warm-up
    const idleBefore = median(await reads(3000));
    const a = t.seed.organizations[0].reference;
    for (let i = 0; i < 200; i++) await recordEvent(t, 'order.created', undefined, a);
    t.s.worker.nudge();
    const attemptsSoFar = async () =>
      (
        await t.db.query<{ n: number }>(
          'SELECT coalesce(sum(jsonb_array_length(attempts)), 0)::int AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1)',
          [endpoints],
        )
      )[0].n;
    const before = await attemptsSoFar();
    const under = median(await reads(8000));
    const attempts = (await attemptsSoFar()) - before;
    for (const ref of endpoints) await call(t, 'DELETE', `/v2/webhook-endpoints/${ref}`);
    // Idle before and after the attack, the quicker of the two: a busy machine does not flatter the ratio.
    const idle = Math.min(idleBefore, median(await reads(3000)));
    const ratio = under / Math.max(idle, 0.01);
    ratios['fast-failing churn'] = Number(ratio.toFixed(2));
    notes.push(
      `fairness, fast-failing churn: B's GET p50 ${under.toFixed(1)} ms while A's 2,000 deliveries to 10 refusing endpoints are due (${attempts} attempts in 8 s), idle ${idle.toFixed(1)} ms`,
    );
    assert.ok(attempts <= 10 * 4, `${attempts} attempts: a refusing endpoint backs off as a whole`);
    assert.ok(under < Math.max(2 * idle, idle + 3), `B's GET p50 ${under.toFixed(1)} ms against ${idle.toFixed(1)} ms`);
  });
});
