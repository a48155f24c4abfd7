import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOrder, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, operator } from '../support/app.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';

import { podctl, podctlServer } from '../support/podctl.ts';

describe('podctl production', () => {
  let t: TestApp;
  let url: string;
  let dir: string;
  let env: Record<string, string>;
  let close: () => Promise<void>;
  before(async () => {
    ({ t, url, dir, env, close } = await podctlServer('podctl-production-'));
  });
  after(() => close());

  it('lists the queue, saves print files, labels and slips, and says why a file cannot be had', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t), { dropshipMinimalShippingLevel: 'tracked' }));
    await startProduction(t, ref);
    const queue = await podctl(['--url', url, 'production', 'queue'], env);
    assert.equal(queue.code, 0, queue.stderr);
    assert.match(queue.stdout, new RegExp(`inProduction\\s+${ref}\\s+\\S+\\s+.*1:pending`));

    const early = await podctl(['--url', url, 'production', 'print-files', ref], env);
    assert.match(early.stdout, /^1\s+2\s+pending/m);
    await t.s.worker.drain();
    const out = join(dir, 'print');
    const saved = await podctl(['--url', url, 'production', 'print-files', ref, '--out', out], env);
    assert.equal(saved.code, 0, saved.stderr);
    assert.equal(
      readFileSync(join(out, `${ref}-line-1.pdf`))
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );

    assert.equal((await podctl(['--url', url, 'production', 'produced', ref], env)).code, 0);
    const shipped = await operator(t, 'POST', '/shipments', {
      orderReferences: [ref],
      trackingNumber: '3SPODCTL1234567',
    });
    const shipment = shipped.data.shipment.reference;
    await t.s.worker.drain();
    const docs = await podctl(['--url', url, 'production', 'documents', shipment, '--out', out, '--json'], env);
    assert.equal(docs.code, 0, docs.stderr);
    assert.deepEqual(
      JSON.parse(docs.stdout).documents.map((d: any) => d.status),
      ['ready', 'ready'],
    );
    if (!popplerMissing)
      assert.ok(pdfText(readFileSync(join(out, `${shipment}-shipping-label.pdf`))).includes('3SPODCTL1234567'));

    const missing = await podctl(['--url', url, 'production', 'print-files', 'Order_nope'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not_found/);
    const early2 = await podctl(['--url', url, 'production', 'remake', ref], env);
    assert.equal(early2.code, 0, early2.stderr);
  });

  it('cancels an order in production with a reason: canceled, and the credit on the ledger', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    await startProduction(t, ref);
    const missing = await podctl(['--url', url, 'orders', 'cancel', ref], env);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /--reason/);
    const res = await podctl(['--url', url, 'orders', 'cancel', ref, '--reason', 'blank cracked in the jig'], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`${ref}\\s+canceled\\s+1\\s+2`));
    const [{ account_id }] = await t.db.query<{ account_id: string }>(
      "SELECT account_id FROM stores WHERE code = 'DEMO1'",
    );
    const ledger = await operator(t, 'GET', `/accounts/${account_id}/ledger?limit=20`);
    const credit = ledger.data.entries.find((e: any) => e.orderReference === ref && e.kind === 'refund');
    assert.ok(credit && credit.amount > 0, ledger.body);
    assert.match(credit.description, /blank cracked in the jig/);
  });
});
