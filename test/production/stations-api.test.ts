import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrder, getOrder, orderBody, products, startProduction, uploadImage } from '../orders/helpers.ts';
import { operator } from '../support/app.ts';
import { podctlSuite } from '../support/podctl.ts';

describe('scan stations through the operator API and podctl', () => {
  const server = podctlSuite('podctl-stations-');

  /** An order of `cases` clear cases in production, batched (operator API): its batch and cases. */
  async function batched(cases: number) {
    const { t } = server;
    const image = await uploadImage(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [{ productReference: products(t).clear, imageReference: image, quantity: cases }],
      }),
    );
    await startProduction(t, ref);
    const res = await operator(t, 'POST', '/production/batches', { flush: true });
    assert.equal(res.statusCode, 200, res.body);
    const batches = await Promise.all(
      res.data.batches.map(async (b: any) => (await operator(t, 'GET', `/production/batches/${b.reference}`)).data),
    );
    const batch = batches.find((b: any) => b.slots.some((s: any) => s.orderReference === ref));
    const units = batch.slots.filter((s: any) => s.orderReference === ref).map((s: any) => s.unitReference);
    return { ref, batch: batch.reference as string, units: units as string[] };
  }

  it('the operator API prints, checks, reports picking problems and packs, refusing wrong scans with the reason', async () => {
    const { t } = server;
    const { ref, batch, units } = await batched(3);
    const [a, b, c] = units;
    const picked = await operator(t, 'POST', '/production/stations/picking', {
      code: c,
      problem: 'blank_damaged_at_picking',
    });
    assert.equal(picked.statusCode, 200, picked.body);
    assert.equal(picked.data.replaced, true);
    const early = await operator(t, 'POST', '/production/stations/qc', { code: a });
    assert.equal(early.statusCode, 409);
    assert.equal(early.data.code, 'scan_refused');
    assert.match(early.data.message, /not printed yet/);
    assert.equal((await operator(t, 'POST', `/production/batches/${batch}/printed`)).statusCode, 200);

    const passed = await operator(t, 'POST', '/production/stations/qc', { code: a.toUpperCase() });
    assert.deepEqual([passed.statusCode, passed.data.result], [200, 'passed']);
    const failed = await operator(t, 'POST', '/production/stations/qc', { code: b, verdict: 'misprint' });
    assert.deepEqual([failed.data.result, failed.data.remake.taken], ['failed', true]);
    await operator(t, 'POST', '/production/stations/qc', { code: c });

    const pack = await operator(t, 'POST', '/production/stations/pack', { code: a });
    assert.equal(pack.statusCode, 200, pack.body);
    assert.equal(pack.data.shipment, null);
    assert.deepEqual(
      pack.data.progress.missing.map((m: any) => [m.unit, m.why]),
      [
        [b, 'is not printed yet'],
        [c, 'passed QC, not on the table yet'],
      ],
    );
    const bad = await operator(t, 'POST', '/production/stations/pack', { code: 'Batch_x' });
    assert.deepEqual([bad.statusCode, bad.data.code], [400, 'invalid_request']);
    const verdict = await operator(t, 'POST', '/production/stations/qc', { code: a, verdict: 'smudge' });
    assert.equal(verdict.statusCode, 400);
    assert.match(verdict.data.message, /verdict/);
    assert.equal((await getOrder(t, ref)).status.code, 'in_production');
  });

  it('podctl runs the same stations, from the batch sheet to a shipped parcel', async () => {
    const { t } = server;
    const { ref, batch, units } = await batched(1);
    const [u] = units;
    const printed = await server.run('production', 'printed', batch);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`${batch}\\s+printed`));
    const again = await server.run('production', 'printed', batch);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /batch_not_open/);

    const early = await server.run('production', 'pack', u);
    assert.equal(early.code, 1);
    assert.match(early.stderr, /scan_refused.*has not been through QC/);
    const qc = await server.run('production', 'qc', u);
    assert.equal(qc.code, 0, qc.stderr);
    assert.match(qc.stdout, new RegExp(`${u}\\s+${ref}\\s+1\\s+passed`));
    const problem = await server.run('production', 'picking', u, '--problem', 'missing');
    assert.equal(problem.code, 1);
    assert.match(problem.stderr, /is past picking/);

    const pack = await server.run('production', 'pack', u);
    assert.equal(pack.code, 0, pack.stderr);
    assert.match(pack.stdout, new RegExp(`${ref}: shipped as Shipment_`));
    assert.equal((await getOrder(t, ref)).status.code, 'shipped');
  });
});
