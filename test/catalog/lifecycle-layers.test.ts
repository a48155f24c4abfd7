import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import sharp from 'sharp';
import { catalogWrites } from '../../src/modules/catalog/admin-repo.ts';
import { CATALOG_TOPIC } from '../../src/modules/catalog/events.ts';
import { printSpecFor } from '../../src/modules/catalog/geometry.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';

// The daily lifecycle advance and a case whose stored print spec is not the one its geometry gives.
describe('catalog: the lifecycle advance and a print spec the geometry does not give', () => {
  let t: TestApp;
  const logged: Array<{ msg: string; product?: string }> = [];
  before(async () => {
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    t = await createTestApp({ log: log as never });
  });
  after(() => t.close());

  it('stores the spec; draws layers anew, logged, for a product made, and none for an archived one', async () => {
    const cases = await t.db.query<{ id: string }>(
      `SELECT p.id FROM products p JOIN productgroups g ON g.id = p.productgroup_id
        WHERE p.device_key IS NOT NULL AND p.printable AND g.case_type IS NOT NULL AND p.status = 'launched'
        ORDER BY p.seq LIMIT 2`,
    );
    assert.equal(cases.length, 2, 'two launched cases in the demo catalog');
    const [archived, made] = cases.map((c) => c.id);
    // An operator's own print-area layer on both; one of them archived.
    const own = await sharp({ create: { width: 40, height: 80, channels: 4, background: '#ff0000' } })
      .png()
      .toBuffer();
    const layers = [{ name: 'print-area', file: { base64: own.toString('base64') } }];
    for (const [ref, change] of [
      [archived, { layers, status: 'archived' }],
      [made, { layers }],
    ] as const) {
      const res = await operator(t, 'PATCH', `/catalog/products/${ref}`, change);
      assert.equal(res.statusCode, 200, res.body);
    }
    const layersOf = async (ref: string) =>
      (await catalogWrites.mediaOfKind(t.db, ref, ['layer'])).map((m) => [m.name, m.sha256]).sort();
    const ownLayers = await layersOf(archived);
    assert.deepEqual(await layersOf(made), ownLayers);
    // Both stored with a spec other than the geometry's (a wider print area).
    const geometrySpec = new Map<string, unknown>();
    for (const ref of [archived, made]) {
      const row = (await catalogWrites.lockProduct(t.db, ref))!;
      const shape = (await t.s.catalog.productShapes([ref])).get(ref)!;
      const spec = printSpecFor(shape.device!, shape.caseType!);
      geometrySpec.set(ref, spec);
      await catalogWrites.updateProduct(t.db, { ...row, print_spec: { ...spec, widthMm: spec.widthMm + 2 } });
    }
    t.s.changes.changed(CATALOG_TOPIC);

    t.clock.advance(60_000);
    logged.length = 0;
    await t.s.catalog.advanceLifecycle();

    for (const ref of [archived, made])
      assert.deepEqual((await catalogWrites.lockProduct(t.db, ref))!.print_spec, geometrySpec.get(ref), ref);
    assert.deepEqual(await layersOf(archived), ownLayers, 'an archived product keeps its layers: nothing is drawn');
    const redrawn = await layersOf(made);
    assert.deepEqual(
      redrawn.map(([name]) => name),
      ['cutline', 'print-area'],
      'the product made gets the geometry’s layers',
    );
    assert.notDeepEqual(redrawn, ownLayers);
    const told = logged.filter((l) => /layers drawn anew/.test(l.msg)).map((l) => l.product);
    assert.deepEqual(told, [made], 'replacing stored layers is logged, naming the product');
  });
});
