import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { RENDER_IDLE_MS } from '../../src/modules/rendering/renderer.ts';
import type { SeedResult } from '../../src/seed/demo.ts';
import { type Child, freshDatabase, http, peakRssMb, sleep, startProcess } from './process.ts';
import { ADDRESS } from '../orders/helpers.ts';
import { recordFigures } from './support.ts';

/** SOAK_SECONDS lengthens the soak (default 3 minutes). */
const SOAK_MS = Number(process.env.SOAK_SECONDS ?? 180) * 1000;
const OPERATOR = 'reliability-soak-operator';
const DB_URL = process.env.TEST_DATABASE_URL;

/** Resident memory of a process now (Linux' VmRSS), in MB. */
function rssMb(child: Child): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.proc.pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** A browser's sign-in to the dashboard: the session cookie, then pages with it. */
async function dashboardSession(base: string, email: string, password: string) {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const page = await fetch(`${base}/dashboard/sign-in`);
  keep(page);
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await page.text())?.[1] ?? '';
  const signIn = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  keep(signIn);
  assert.equal(signIn.status, 303, 'signed in');
  return async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { cookie: cookie() } });
    await res.arrayBuffer();
    return res.status;
  };
}

describe('memory over a long mixed soak: at rest afterwards and at its peak', { timeout: SOAK_MS + 600_000 }, () => {
  let s: Child;
  let dir: string;
  let seed: SeedResult;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  const on = DB_URL ? 'PostgreSQL' : 'PGlite';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pod-reliability-soak-'));
    if (DB_URL) db = await freshDatabase(DB_URL, `pod_rel_soak_${process.pid}`);
    s = await startProcess('src/main.ts', {
      ...(db ? { DATABASE_URL: db.url } : {}),
      DATA_DIR: dir,
      OPERATOR_TOKEN: OPERATOR,
      RATE_LIMITS: 'default=100000000/60,uploads=100000000/60,downloads=100000000/60,previews=100000000/60',
    });
    seed = JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8')) as SeedResult;
  });
  after(async () => {
    await s?.kill('SIGTERM');
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves orders, renders, previews, dashboard pages and PDFs for minutes without a 5xx, and settles afterwards', async () => {
    const org = seed.organizations[0];
    const key = org.apiKeys.full;
    const composition = seed.rendering!.compositions['demo-studio-ip15'];
    const product = org.products!.find((p) => p.name === 'iPhone 15 Clear Case')!.reference;
    const storeRef = org.stores.find((x) => x.code === 'DEMO1')!.reference;
    const user = seed.dashboardUsers!.find((u) => u.role === 'partner' && u.organizationReference === org.reference)!;
    const page = await dashboardSession(s.base, user.email, user.password);
    const images: string[] = [];
    for (let i = 0; i < 4; i++) {
      const png = await sharp({
        create: { width: 1200, height: 2000, channels: 3, background: { r: 40 * i, g: 90, b: 160 } },
      })
        .png()
        .toBuffer();
      const up = await http(s.base, 'POST', '/v2/images', { key, raw: png });
      assert.equal(up.status, 200, up.text);
      images.push(up.body.image.reference);
    }
    const operator = { authorization: `Bearer ${OPERATOR}` };
    const orders: string[] = [];
    let n = 0;
    const pick = <T>(xs: T[]) => xs[n % xs.length];
    const ops: Record<string, () => Promise<number>> = {
      order: async () => {
        const res = await http(s.base, 'POST', '/v2/orders', {
          key,
          body: {
            order: {
              storeReference: storeRef,
              shippingKind: 'dropship',
              dropshipAddress: ADDRESS,
              orderlines: [{ productReference: product, imageReference: pick(images), quantity: 1 }],
            },
          },
        });
        if (res.status === 200) orders.push(res.body.order.reference);
        return res.status;
      },
      render: async () =>
        (
          await http(s.base, 'POST', '/v2/renders', {
            key,
            body: { render: { compositionReference: composition, imageReference: pick(images) } },
          })
        ).status,
      preview: async () =>
        (
          await http(s.base, 'POST', '/v2/renders/preview', {
            key,
            body: { preview: { compositionReference: composition, imageReference: pick(images) } },
          })
        ).status,
      'dashboard page': () =>
        page(
          pick(['/dashboard', '/dashboard/orders', orders.length ? `/dashboard/orders/${pick(orders)}` : '/dashboard']),
        ),
      PDF: async () =>
        (
          await http(
            s.base,
            'GET',
            `/operator/shipments/${pick(shipments)}/documents/${pick(['packing-slip', 'shipping-label'])}`,
            { headers: operator },
          )
        ).status,
      'order list': async () => (await http(s.base, 'GET', '/v2/orders?limit=50', { key })).status,
    };
    // Shipments whose label and packing slip the soak draws: two orders made and shipped first.
    const shipments: string[] = [];
    for (let i = 0; i < 2; i++) {
      assert.equal(await ops.order(), 200);
      const ref = orders[orders.length - 1];
      const started = await http(s.base, 'POST', `/v2/test-helpers/orders/${ref}/start-production`, { key });
      assert.equal(started.status, 204, started.text);
      const shipped = await http(s.base, 'POST', '/v2/test-helpers/shipments', {
        key,
        body: { shipment: { orderReferences: [ref] } },
      });
      assert.equal(shipped.status, 200, shipped.text);
      shipments.push(shipped.body.shipment.reference);
    }
    const names = Object.keys(ops);
    const statuses = new Map<string, Map<number, number>>(names.map((k) => [k, new Map()]));
    const startMb = rssMb(s);
    const end = Date.now() + SOAK_MS;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < end) {
          const name = names[n++ % names.length];
          const status = await ops[name]();
          const m = statuses.get(name)!;
          m.set(status, (m.get(status) ?? 0) + 1);
        }
      }),
    );
    const peak = peakRssMb(s);
    // At rest: no render waiting or under way, then the renderer's idle timer runs out and the
    // memory trim (every 5 s by default) that follows it gives the freed C heap back.
    const renders = async (status: string) =>
      (
        await http(s.base, 'GET', `/operator/jobs?status=${status}&kind=rendering.render&limit=1`, {
          headers: operator,
        })
      ).body?.jobs ?? [];
    for (let i = 0; i < 240; i++) {
      if ((await renders('pending')).length === 0 && (await renders('running')).length === 0) break;
      await sleep(1000);
    }
    await sleep(RENDER_IDLE_MS + 10_000);
    const rest = rssMb(s);
    const fiveXX = [...statuses.values()].reduce(
      (sum, m) => sum + [...m].filter(([st]) => st >= 500 || st === 0).reduce((x, [, c]) => x + c, 0),
      0,
    );
    const summary = [...statuses]
      .map(([name, m]) => `${name} ${[...m].map(([st, c]) => `${c}x${st}`).join('/')}`)
      .join(', ');
    recordFigures('soak', {
      memoryPeakMb: peak,
      memoryAtRestMb: rest,
      fiveXX,
      notes: [
        `soak: ${Math.round(SOAK_MS / 1000)} s of orders, renders, previews, dashboard pages and PDFs on ${on}: resident ${startMb} MB before, peak ${peak} MB, ${rest} MB at rest afterwards; ${summary}`,
      ],
    });
    assert.equal(fiveXX, 0, `no 5xx or dropped connection: ${summary}`);
    for (const [name, m] of statuses) assert.ok((m.get(200) ?? 0) > 0, `${name}: some answered 200 (${summary})`);
  });
});
