/**
 * The floor's two speed targets, each beside a baseline measured in the same run:
 * - batching 2,000 released lines into jigs (target under 2 s on PGlite), against reading the same
 *   2,000 units awaiting a batch (the least any batching must do);
 * - a 12-slot batch print file at 600 dpi, with its pick list and batch sheet, on its worker thread
 *   (target within 10 s), against the 12 per-line print files of the same artwork made one by one.
 *
 *   npx tsx bench/floor.ts            (--smoke: 200 lines)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { CASE_TYPES } from '../src/modules/catalog/casetypes.ts';
import DEVICES from '../src/modules/catalog/devices.json' with { type: 'json' };
import type { DeviceGeometry } from '../src/modules/catalog/devices.ts';
import { caseOutline, printSpecFor } from '../src/modules/catalog/geometry.ts';
import { drawBatchFiles } from '../src/modules/production/batch-files.ts';
import { loadFloorConfig } from '../src/modules/production/floor-config.ts';
import { floorRepo } from '../src/modules/production/floor-repo.ts';
import { buildPrintFile } from '../src/modules/production/print-file.ts';
import { startRuntime } from '../src/runtime.ts';
import { seedDemoOnce } from '../src/seed/demo-keys.ts';
import { freshDatabase, patternPng } from './setup.ts';

const SMOKE = process.argv.includes('--smoke');
const LINES = SMOKE ? 200 : 2_000;

export interface FloorRow {
  scenario: string;
  ms: number;
  baselineMs: number;
  targetMs: number;
  note: string;
}

const timed = async <T>(f: () => Promise<T>): Promise<[number, T]> => {
  const t = performance.now();
  const out = await f();
  return [Math.round(performance.now() - t), out];
};

/** 2,000 released lines (5 per order, phones large and small) awaiting a batch, then batched. */
async function batching(): Promise<FloorRow> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pod-bench-floor-'));
  const database = await freshDatabase();
  const s = await startRuntime(
    loadConfig({ DATA_DIR: dataDir, SECRET_KEY: 'bench', ...(database.url ? { DATABASE_URL: database.url } : {}) }),
    { log: pino({ level: 'silent' }) as never },
  );
  try {
    const demo = (await seedDemoOnce(s, dataDir, { rotateKeys: true })).result!.organizations[0];
    const [store] = await s.db.query<{ id: string }>('SELECT id FROM stores WHERE organization_id = $1 LIMIT 1', [
      demo.reference,
    ]);
    // Launched case products with a device geometry: what the batching reads for every unit.
    const cases = await s.db.query<{ id: string }>(
      `SELECT p.id FROM products p JOIN productgroups g ON g.id = p.productgroup_id
       WHERE p.status = 'launched' AND p.device_key IS NOT NULL AND g.case_type IN ('clear', 'tough', 'magsafe')
       ORDER BY p.id LIMIT 40`,
    );
    const orders = LINES / 5;
    await s.db.query(
      `INSERT INTO orders (id, organization_id, store_id, order_number, shipping_kind, minimal_shipping_level,
         shipping_level, status, status_modified_at, shipping_cents, created_at)
       SELECT 'Order_bench' || lpad(g::text, 15, '0'), $1, $2, 900000 + g, 'dropship', 'basic', 'basic', 'in_production',
         now(), 495, now() - ((10000 - g) || ' seconds')::interval FROM generate_series(1, $3::int) g`,
      [demo.reference, store.id, orders],
    );
    await s.db.query(
      `INSERT INTO orderlines (order_id, line_index, product_id, image_id, quantity, unit_price_cents, unit_weight_grams)
       SELECT 'Order_bench' || lpad(g::text, 15, '0'), l, ($2::text[])[1 + (g * 5 + l) % array_length($2::text[], 1)],
         'Image_bench', 1, 1999, 30 FROM generate_series(1, $1::int) g, generate_series(1, 5) l`,
      [orders, cases.map((c) => c.id)],
    );
    const at = new Date();
    for (let g = 1; g <= orders; g++)
      await floorRepo.createUnits(
        s.db,
        {
          orderId: `Order_bench${String(g).padStart(15, '0')}`,
          organizationId: demo.reference,
          orderCreatedAt: new Date(at.getTime() - (10000 - g) * 1000),
        },
        [1, 2, 3, 4, 5].map((index) => ({ index, copies: 1 })),
        at,
      );
    const [baselineMs, read] = await timed(() => floorRepo.awaiting(s.db));
    const [ms, out] = await timed(() => s.production.floor.batchUnits({ flush: true }));
    const placed = out.batches.reduce((n, b) => n + b.units, 0);
    return {
      scenario: `batching ${read.length} released lines into jigs (PGlite)`,
      ms,
      baselineMs,
      targetMs: 2000,
      note: `${out.batches.length} batches, ${placed} placed, ${out.unplaced.length} no jig fits; baseline: reading the same units`,
    };
  } finally {
    await s.worker.stop();
    await s.rateLimits.close();
    await s.db.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

/** A full phone jig at 600 dpi: the batch's print file, pick list and batch sheet on their thread. */
async function printFile(): Promise<FloorRow> {
  const floor = loadFloorConfig();
  const jig = floor.jigs[0];
  const device = (DEVICES as unknown as DeviceGeometry[]).find((d) => d.key === 'iphone-15')!;
  const spec = printSpecFor(device, CASE_TYPES.clear);
  const outline = caseOutline(device, CASE_TYPES.clear);
  const artworks = await Promise.all(jig.slots.map((_, i) => patternPng(1800, 3600, i + 3)));
  const at = new Date();
  const [baselineMs] = await timed(async () => {
    for (const artwork of artworks)
      await buildPrintFile({ artwork, spec, outline, bleedMm: floor.bleedMm, title: 'line', at });
  });
  const slots = jig.slots.map((slot, i) => ({
    slot,
    sku: 'CASE-IP15-CLR',
    bin: 'A',
    product: 'iPhone 15 Clear Case',
    unit: `line 1, case ${i + 1} of 12`,
    orderCode: 'BENCH-1',
    unitId: `Unit_0123456789abcdefghjkmnp${'qrstvwxyz0123'[i]}`,
    remake: null,
  }));
  const [ms, files] = await timed(() =>
    drawBatchFiles({
      printer: floor.printers[0],
      cases: jig.slots.map((slot, i) => ({ slot, artwork: artworks[i], spec, outline })),
      bleedMm: floor.bleedMm,
      sheet: {
        reference: 'Batch_0123456789abcdefghjkmnpqrs',
        printer: floor.printers[0],
        jigName: jig.name,
        caseType: 'Clear Case',
        created: at,
        jigSlots: jig.slots,
        slots,
      },
      at,
    }),
  );
  return {
    scenario: `batch print file, ${jig.slots.length} slots at ${spec.dpi} dpi (worker thread)`,
    ms,
    baselineMs,
    targetMs: 10_000,
    note: `${Math.round(files.printFile.length / 1024)} kB; baseline: the ${jig.slots.length} per-line files one by one`,
  };
}

export async function floorScenarios(): Promise<FloorRow[]> {
  return [await batching(), await printFile()];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await floorScenarios())
    console.log(
      `${r.scenario}: ${r.ms} ms (target ${r.targetMs}); baseline ${r.baselineMs} ms = ${(r.ms / Math.max(1, r.baselineMs)).toFixed(2)}x; ${r.note}`,
    );
  process.exit(0);
}
