import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createOrder, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { operator } from '../support/app.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';
import { podctlSuite } from '../support/podctl.ts';

describe('podctl production', () => {
  const server = podctlSuite('podctl-production-');

  it('lists the queue, saves print files, labels and slips, and says why a file cannot be had', async () => {
    const ref = await createOrder(
      server.t,
      orderBody(server.t, await uploadImage(server.t), { dropshipMinimalShippingLevel: 'tracked' }),
    );
    await startProduction(server.t, ref);
    const queue = await server.run('production', 'queue');
    assert.equal(queue.code, 0, queue.stderr);
    assert.match(queue.stdout, new RegExp(`inProduction\\s+${ref}\\s+\\S+\\s+.*1:pending`));

    const early = await server.run('production', 'print-files', ref);
    assert.match(early.stdout, /^1\s+2\s+pending/m);
    await server.t.s.worker.drain();
    const out = join(server.dir, 'print');
    const saved = await server.run('production', 'print-files', ref, '--out', out);
    assert.equal(saved.code, 0, saved.stderr);
    assert.equal(
      readFileSync(join(out, `${ref}-line-1.pdf`))
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );

    assert.equal((await server.run('production', 'produced', ref)).code, 0);
    const shipped = await operator(server.t, 'POST', '/shipments', {
      orderReferences: [ref],
      trackingNumber: '3SPODCTL1234567',
    });
    const shipment = shipped.data.shipment.reference;
    await server.t.s.worker.drain();
    const docs = await server.run('production', 'documents', shipment, '--out', out, '--json');
    assert.equal(docs.code, 0, docs.stderr);
    assert.deepEqual(
      JSON.parse(docs.stdout).documents.map((d: any) => d.status),
      ['ready', 'ready'],
    );
    if (!popplerMissing)
      assert.ok(pdfText(readFileSync(join(out, `${shipment}-shipping-label.pdf`))).includes('3SPODCTL1234567'));

    const missing = await server.run('production', 'print-files', 'Order_nope');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not_found/);
    const early2 = await server.run('production', 'remake', ref);
    assert.equal(early2.code, 0, early2.stderr);
  });

  it('cancels an order in production with a reason: canceled, and the credit on the ledger', async () => {
    const ref = await createOrder(server.t, orderBody(server.t, await uploadImage(server.t)));
    await startProduction(server.t, ref);
    const missing = await server.run('orders', 'cancel', ref);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /--reason/);
    const res = await server.run('orders', 'cancel', ref, '--reason', 'blank cracked in the jig');
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`${ref}\\s+canceled\\s+1\\s+2`));
    const [{ account_id }] = await server.t.db.query<{ account_id: string }>(
      "SELECT account_id FROM stores WHERE code = 'DEMO1'",
    );
    const ledger = await operator(server.t, 'GET', `/accounts/${account_id}/ledger?limit=20`);
    const credit = ledger.data.entries.find((e: any) => e.orderReference === ref && e.kind === 'refund');
    assert.ok(credit && credit.amount > 0, ledger.body);
    assert.match(credit.description, /blank cracked in the jig/);
  });
});
