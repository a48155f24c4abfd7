/** Writes: order creation flat out and paced, a quote, and 1 MB image uploads. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Bench, SECONDS, SMOKE, load1, want } from '../harness.ts';
import { noisePng } from '../setup.ts';
import type { Demo } from './demo.ts';

/** PostgreSQL's write ceiling for order creation, from its own process (bench/write-baseline.ts). */
async function writeCeiling(databaseUrl: string): Promise<{ perSecond: number; p50: number; p99: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', 'write-baseline.ts')],
    { env: { ...process.env, DATABASE_URL: databaseUrl, SECONDS: String(SECONDS), CONNECTIONS: '20' } },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

async function orderScenarios(b: Bench, d: Demo) {
  const { f, H, measure, rows } = b;
  const orderReq = {
    method: 'POST',
    path: '/v2/orders',
    headers: H(f.demoKey, { 'content-type': 'application/json' }),
    setupRequest: (r: any) => ({ ...r, body: d.orderBody() }),
  };
  const post = await measure('POST /v2/orders (dropship, 2 lines)', orderReq, { connections: 20 });
  post.ratio = `${post.rps} orders/s (target ${f.databaseUrl ? '1,000' : '600'})`;
  const paced = await measure(
    'POST /v2/orders at 200/s',
    orderReq,
    { connections: 10, rate: 200 },
    'p99 target < 50 ms',
  );
  paced.ratio = `p99 ${paced.p99} ms (target < 50)`;
  if (f.databaseUrl) {
    // PostgreSQL's own limit for this work: the same rows through the same group commit from a bare
    // process (bench/write-baseline.ts), right after the service's figure.
    const ceiling = await writeCeiling(f.databaseUrl);
    rows.push({
      scenario: 'baseline: bare pg order writes (write ceiling)',
      rps: ceiling.perSecond,
      p50: ceiling.p50,
      p99: ceiling.p99,
      errors: 0,
      non2xx: 0,
      rssMb: 0,
      load: load1(),
      note: 'orderWriter on pg, 20 loops, no HTTP',
    });
    post.ratio = `${post.rps} orders/s = ${(post.rps / Math.max(ceiling.perSecond, 1)).toFixed(2)}x write ceiling (target 0.6x)`;
  }
}

export async function writeScenarios(b: Bench, d: Demo) {
  const { f, H, measure } = b;
  if (want('POST /v2/orders')) await orderScenarios(b, d);
  if (want('POST /v2/quote')) {
    await measure('POST /v2/quote', {
      method: 'POST',
      path: '/v2/quote',
      headers: H(f.demoKey, { 'content-type': 'application/json' }),
      body: JSON.stringify({
        quote: {
          storeReference: d.store.reference,
          shippingKind: 'dropship',
          dropshipAddress: d.address,
          orderlines: [{ productReference: d.printable.reference, quantity: 2 }],
        },
      }),
    });
  }

  // Uploads: distinct 1 MB PNGs so the deduplication shortcut is not what is measured.
  if (want('POST /v2/images (1 MB PNG)')) {
    const pngs: Buffer[] = [];
    for (let i = 0; i < (SMOKE ? 4 : 60); i++) pngs.push(await noisePng(580, 580, 1000 + i));
    let u = 0;
    await measure(
      'POST /v2/images (1 MB PNG)',
      {
        method: 'POST',
        path: '/v2/images',
        headers: H(f.demoKey, { 'content-type': 'application/octet-stream' }),
        setupRequest: (r: any) => ({ ...r, body: pngs[u++ % pngs.length] }),
      },
      { connections: 4, amount: pngs.length },
      'distinct images; later repeats are deduplicated',
    );
  }
}
