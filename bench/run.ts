import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { Cursors } from '../src/platform/http/pagination.ts';
import { composeRender } from '../src/modules/rendering/renderer.ts';
import { drawTemplate } from '../src/modules/rendering/assets.ts';
import { noisePng, prepare } from './setup.ts';
import { peakRss, startProcess } from './processes.ts';

/**
 * `npm run bench`: starts the service and two baselines, drives load from this process with
 * autocannon and prints one table with ratios against the baselines measured in the same run.
 * `--smoke` runs every scenario for a moment on small data (CI keeps the bench working with it).
 */
const SMOKE = process.argv.includes('--smoke');
const SECONDS = SMOKE ? 1 : Number(process.env.BENCH_SECONDS ?? 10);
const BIG = SMOKE ? 2_000 : Number(process.env.BENCH_BIG_ORDERS ?? 1_000_000);
const TENANTS = SMOKE ? 4 : 40;

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  rssMb: number;
  ratio?: string;
  note?: string;
}

type Req = { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; setupRequest?: (r: any) => any };

async function load(base: string, req: Req, opts: { connections?: number; seconds?: number; rate?: number; amount?: number } = {}) {
  const result = await autocannon({
    url: base,
    connections: opts.connections ?? 10,
    duration: opts.seconds ?? SECONDS,
    ...(opts.amount ? { amount: opts.amount } : {}),
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [
      {
        method: (req.method ?? 'GET') as 'GET',
        path: req.path,
        ...(req.headers ? { headers: req.headers } : {}),
        ...(req.body !== undefined ? { body: req.body as string } : {}),
        ...(req.setupRequest ? { setupRequest: req.setupRequest } : {}),
      },
    ],
  });
  return result;
}

function row(scenario: string, r: autocannon.Result, rssMb: number, note?: string): Row {
  return {
    scenario,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    rssMb,
    note,
  };
}

async function main() {
  const started = Date.now();
  process.stdout.write(`preparing data (${BIG} orders for the big organization)...\n`);
  const f = await prepare({ bigOrders: BIG, smallOrders: 1000, tenants: TENANTS });
  const env = {
    DATA_DIR: f.dataDir,
    SECRET_KEY: f.secretKey,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'default=100000000/60,uploads=100000000/60,downloads=100000000/60',
    ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
  };
  const server = await startProcess('src/main.ts', env, /Base URL/);
  const baseline = await startProcess('bench/baseline.ts', {
    DATA_DIR: f.baselineDataDir,
    BASELINE_TABLE: 'orders',
    ...(f.databaseUrl ? { DATABASE_URL: f.databaseUrl } : {}),
  }, /"ready":true/);
  const base = `http://127.0.0.1:${server.port}`;
  const baseBaseline = `http://127.0.0.1:${baseline.port}`;
  const pid = server.child.pid!;
  const rows: Row[] = [];
  const H = (key: string, extra: Record<string, string> = {}) => ({ 'x-service-secret-key': key, ...extra });
  const api = async (method: string, path: string, key: string, body?: unknown, ct = 'application/json') => {
    const res = await fetch(`${base}${path}`, { method, headers: H(key, body === undefined ? {} : { 'content-type': ct }), body: body === undefined ? undefined : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body) });
    return { status: res.status, data: await res.json().catch(() => null) };
  };
  const measure = async (name: string, req: Req, opts?: Parameters<typeof load>[2], note?: string, url = base) => {
    const { result, peakMb } = await peakRss(pid, () => load(url, req, opts));
    const r = row(name, result, url === base ? peakMb : 0, note);
    rows.push(r);
    process.stdout.write(`  ${name}: ${r.rps} req/s, p99 ${r.p99} ms\n`);
    return r;
  };

  try {
    // Baselines: the HTTP ceiling and the database ceiling of this machine, in this run.
    const ceilingHttp = await measure('baseline: bare Fastify constant', { path: '/const' }, {}, undefined, baseBaseline);
    const ceilingDb = await measure('baseline: bare Fastify + PK select', { path: `/pk/${f.sampleOrder}` }, {}, undefined, baseBaseline);

    const demoProducts = (await api('GET', '/v2/products?limit=100', f.demoKey)).data.products as any[];
    // The demo compositions are made for this product; any launched print product would do for orders.
    const printable = demoProducts.find((p) => p.name === 'iPhone 15 Clear Case') ?? demoProducts.find((p) => p.printable && p.status === 'launched');
    const plain = demoProducts.find((p) => !p.printable && p.status === 'launched');
    const store = (await api('GET', '/v2/stores', f.demoKey)).data.stores.find((s: any) => s.integration === 'api');
    const image = (await api('POST', '/v2/images', f.demoKey, await noisePng(64, 64, 1), 'application/octet-stream')).data.image;
    const demoOrder = (await api('GET', '/v2/orders?limit=1', f.small.key)).data.orders[0];

    const getProduct = await measure('GET /v2/products/{ref}', { path: `/v2/products/${printable.reference}`, headers: H(f.demoKey) });
    const getOrder = await measure('GET /v2/orders/{ref}', { path: `/v2/orders/${demoOrder.reference}`, headers: H(f.small.key) });
    getProduct.ratio = `${((getProduct.rps / ceilingDb.rps) * 100).toFixed(0)}% of DB ceiling`;
    getOrder.ratio = `${((getOrder.rps / ceilingDb.rps) * 100).toFixed(0)}% of DB ceiling`;
    const list1k = await measure('GET /v2/orders page of 50 (1,000 orders)', { path: '/v2/orders?limit=50', headers: H(f.small.key) });
    const cursors = new Cursors(f.secretKey);
    const deepSmall = cursors.encode('orders', (await api('GET', '/v2/orders?limit=1', f.small.key)).data.orders.length ? 500 : 0);
    await measure('GET /v2/orders deep page (1,000 orders)', { path: `/v2/orders?limit=50&cursor=${encodeURIComponent(deepSmall)}`, headers: H(f.small.key) });
    const listBig = await measure(`GET /v2/orders page of 50 (${BIG.toLocaleString('en')} orders)`, { path: '/v2/orders?limit=50', headers: H(f.big.key) });
    const deep = cursors.encode('orders', f.big.middleSeq);
    const deepBig = await measure(`GET /v2/orders deep page (${BIG.toLocaleString('en')} orders)`, { path: `/v2/orders?limit=50&cursor=${encodeURIComponent(deep)}`, headers: H(f.big.key) });
    listBig.ratio = `p99 ${(listBig.p99 / Math.max(list1k.p99, 1)).toFixed(2)}x of 1,000`;
    deepBig.ratio = `p99 ${(deepBig.p99 / Math.max(list1k.p99, 1)).toFixed(2)}x of 1,000`;

    const address = { firstname: 'Ada', lastname: 'Lovelace', streetname: 'Herengracht', housenumber: '1', zipcode: '1015 BA', city: 'Amsterdam', countryCode: 'NL', email: 'ada@example.com' };
    let n = 0;
    const orderBody = () => JSON.stringify({
      order: {
        storeReference: store.reference, shippingKind: 'dropship', customIdentifier: `bench-${Date.now()}-${n++}`, dropshipAddress: address,
        orderlines: [{ productReference: printable.reference, imageReference: image.reference, quantity: 1 }, { productReference: plain.reference, quantity: 2 }],
      },
    });
    const post = await measure('POST /v2/orders (dropship, 2 lines)', {
      method: 'POST', path: '/v2/orders', headers: H(f.demoKey, { 'content-type': 'application/json' }), setupRequest: (r: any) => ({ ...r, body: orderBody() }),
    }, { connections: 20 });
    post.ratio = `${post.rps} orders/s (target 1,000)`;
    await measure('POST /v2/orders at 200/s', {
      method: 'POST', path: '/v2/orders', headers: H(f.demoKey, { 'content-type': 'application/json' }), setupRequest: (r: any) => ({ ...r, body: orderBody() }),
    }, { connections: 10, rate: 200 }, 'p99 target < 50 ms');
    await measure('POST /v2/quote', {
      method: 'POST', path: '/v2/quote', headers: H(f.demoKey, { 'content-type': 'application/json' }),
      body: JSON.stringify({ quote: { storeReference: store.reference, shippingKind: 'dropship', dropshipAddress: address, orderlines: [{ productReference: printable.reference, quantity: 2 }] } }),
    });

    // Uploads: distinct 1 MB PNGs so the deduplication shortcut is not what is measured.
    const pngs: Buffer[] = [];
    for (let i = 0; i < (SMOKE ? 4 : 60); i++) pngs.push(await noisePng(580, 580, 1000 + i));
    let u = 0;
    await measure('POST /v2/images (1 MB PNG)', {
      method: 'POST', path: '/v2/images', headers: H(f.demoKey, { 'content-type': 'application/octet-stream' }), setupRequest: (r: any) => ({ ...r, body: pngs[u++ % pngs.length] }),
    }, { connections: 4, amount: pngs.length }, 'distinct images; later repeats are deduplicated');

    // Other requests while a 7500x7500 PNG is downsized.
    const idle = await measure('GET /v2/orders/{ref} idle', { path: `/v2/orders/${demoOrder.reference}`, headers: H(f.small.key) }, { connections: 4, rate: 200 });
    const huge = await noisePng(SMOKE ? 7100 : 7500, SMOKE ? 200 : 7500, 7);
    const uploadStart = Date.now();
    const [underUpload] = await Promise.all([
      measure('GET /v2/orders/{ref} during 7500x7500 upload', { path: `/v2/orders/${demoOrder.reference}`, headers: H(f.small.key) }, { connections: 4, rate: 200 }),
      (async () => {
        const { peakMb } = await peakRss(pid, () => api('POST', '/v2/images', f.demoKey, huge, 'application/octet-stream'));
        rows.push({ scenario: 'POST /v2/images (7500x7500 PNG, downsized)', rps: 0, p50: Date.now() - uploadStart, p99: Date.now() - uploadStart, errors: 0, non2xx: 0, rssMb: peakMb, note: `one upload of ${(huge.length / 1e6).toFixed(0)} MB; p50/p99 = its time` });
      })(),
    ]);
    underUpload.ratio = `p99 ${(underUpload.p99 / Math.max(idle.p99, 1)).toFixed(2)}x idle`;

    // Renders: the service's renderer against a plain sharp pipeline doing the same composition.
    const area = { x: 330, y: 110, width: 160, height: 320, rotation: -10 };
    const tpl = await drawTemplate({ width: 800, height: 600 }, area, { from: '#dfe7ef', to: '#f7f3ee', surface: '#c9b59a' });
    const art = await noisePng(1200, 1200, 99);
    const template = { ...tpl, printArea: area, output: { widthPx: 800, heightPx: 600, format: 'webp' as const } };
    const runs = SMOKE ? 3 : 30;
    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) await fn();
      return (performance.now() - t0) / runs;
    };
    const ours = await time(() => composeRender(template, art));
    const plainSharp = await time(async () => {
      const fitted = await sharp(art).resize(area.width, area.height, { fit: 'cover' }).composite([{ input: tpl.overlay, blend: 'over' }, { input: tpl.mask, blend: 'dest-in' }]).png().toBuffer();
      const rotated = await sharp(fitted).rotate(area.rotation, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
      const meta = await sharp(rotated).metadata();
      const out = await sharp(tpl.background).composite([{ input: rotated, left: Math.round(area.x + area.width / 2 - meta.width! / 2), top: Math.round(area.y + area.height / 2 - meta.height! / 2) }]).webp().toBuffer();
      const thumb = await sharp(out).resize(256).webp().toBuffer();
      await sharp(thumb).resize(100, 100, { fit: 'inside' }).ensureAlpha().raw().toBuffer();
    });
    rows.push({ scenario: 'render (service renderer)', rps: Math.round(1000 / ours), p50: Math.round(ours), p99: Math.round(ours), errors: 0, non2xx: 0, rssMb: 0, ratio: `${(ours / plainSharp).toFixed(2)}x plain sharp`, note: 'in-process, per render' });
    rows.push({ scenario: 'render (plain sharp pipeline)', rps: Math.round(1000 / plainSharp), p50: Math.round(plainSharp), p99: Math.round(plainSharp), errors: 0, non2xx: 0, rssMb: 0, note: 'baseline' });

    // Renders queued on the server while the API is read.
    const scenes = (await api('GET', '/v2/scenes', f.demoKey)).data.scenes as any[];
    let rendersQueued = 0;
    for (const scene of scenes) {
      const persp = (await api('GET', `/v2/perspectives?sceneReference=${scene.reference}&productReference=${printable.reference}`, f.demoKey)).data?.perspectives ?? [];
      for (const p of persp) {
        const look = await api('GET', `/v2/lookup-composition?sceneReference=${scene.reference}&productReference=${printable.reference}&perspectiveReference=${p.reference}`, f.demoKey);
        if (look.status !== 200) continue;
        for (let i = 0; i < (SMOKE ? 2 : 20); i++) {
          const img = (await api('POST', '/v2/images', f.demoKey, await noisePng(400, 400, 5000 + rendersQueued), 'application/octet-stream')).data.image;
          const r = await api('POST', '/v2/renders', f.demoKey, { render: { compositionReference: look.data.composition.reference, imageReference: img.reference } });
          if (r.status === 200) rendersQueued++;
        }
      }
    }
    const duringRenders = await measure('GET /v2/orders/{ref} while renders run', { path: `/v2/orders/${demoOrder.reference}`, headers: H(f.small.key) }, { connections: 4, rate: 200 }, `${rendersQueued} renders queued`);
    duringRenders.ratio = `p99 ${(duringRenders.p99 / Math.max(idle.p99, 1)).toFixed(2)}x idle`;

    // Many organizations at once, each at the sustained rate the spec allows.
    const { result: tenantsResults, peakMb } = await peakRss(pid, () =>
      Promise.all(f.tenants.map((key) => load(base, { path: '/v2/organization', headers: H(key) }, { connections: 1, rate: 50 }))),
    );
    const p99s = tenantsResults.map((r) => r.latency.p99).sort((a, b) => a - b);
    const total = tenantsResults.reduce((a, r) => a + r.requests.average, 0);
    const limited = tenantsResults.reduce((a, r) => a + (r.statusCodeStats?.['429']?.count ?? 0), 0);
    rows.push({ scenario: `${TENANTS} organizations at 50 req/s each`, rps: Math.round(total), p50: p99s[Math.floor(p99s.length / 2)], p99: p99s[p99s.length - 1], errors: tenantsResults.reduce((a, r) => a + r.errors, 0), non2xx: tenantsResults.reduce((a, r) => a + r.non2xx, 0), rssMb: peakMb, ratio: `${limited} x 429`, note: 'p50 column: median of per-tenant p99' });

    void ceilingHttp;
  } finally {
    await server.stop();
    await baseline.stop();
    await f.cleanup();
    rmSync(f.dataDir, { recursive: true, force: true });
  }

  const header = '| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | server RSS MB | ratio | note |\n|---|---:|---:|---:|---:|---:|---:|---|---|';
  const md = `${header}\n${rows.map((r) => `| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.rssMb || '-'} | ${r.ratio ?? ''} | ${r.note ?? ''} |`).join('\n')}\n`;
  const meta = { date: new Date().toISOString(), database: f.databaseUrl ? 'postgresql' : 'pglite', smoke: SMOKE, seconds: SECONDS, bigOrders: BIG, durationS: Math.round((Date.now() - started) / 1000) };
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.md'), `# Benchmark ${meta.date} (${meta.database}${SMOKE ? ', smoke' : ''})\n\n${md}`);
  process.stdout.write(`\n${md}\n${JSON.stringify(meta)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
