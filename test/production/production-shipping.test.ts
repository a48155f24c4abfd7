import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { storeLogo } from '../../src/modules/dashboard/logos.ts';
import { ADDRESS, createOrder, expectError, orderBody, ship, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import {
  code128Values,
  pdfImages,
  pdfInfo,
  pdfText,
  rawPixels,
  renderPage,
  popplerMissing,
  keepPage,
} from '../support/pdf-tools.ts';

const MM = 72 / 25.4;

describe('production: shipping documents and the fulfilment queue', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => t.close());

  it('builds a branded shipping label and packing slip per shipment: text, logo and a Code 128 of the tracking number', {
    skip: popplerMissing,
  }, async () => {
    const org = t.seed.organizations[0];
    const brand = org.brands[0];
    const logo = await sharp({ create: { width: 200, height: 80, channels: 3, background: '#ff8800' } })
      .png()
      .toBuffer();
    const url = await storeLogo(t.s.blobs, t.s.config.publicBaseUrl, logo);
    await t.db.query('UPDATE brands SET logo_url = $1 WHERE id = $2', [url, brand.reference]);

    const ref = await createOrder(
      t,
      orderBody(t, await uploadImage(t), { customIdentifier: 'label-test-1', dropshipMinimalShippingLevel: 'tracked' }),
    );
    await startProduction(t, ref);
    const tracking = 'JVGL06123456789012';
    const shipped = await operator(t, 'POST', '/shipments', {
      orderReferences: [ref],
      carrier: 'DHL',
      trackingNumber: tracking,
    });
    assert.equal(shipped.statusCode, 200, shipped.body);
    const shipment = shipped.data.shipment.reference;
    let res = await operator(t, 'GET', `/shipments/${shipment}/documents`);
    assert.deepEqual(res.data.documents.map((d: any) => [d.kind, d.status]).sort(), [
      ['packing_slip', 'pending'],
      ['shipping_label', 'pending'],
    ]);
    await t.s.worker.drain();
    res = await operator(t, 'GET', `/shipments/${shipment}/documents`);
    assert.ok(
      res.data.documents.every((d: any) => d.status === 'ready'),
      res.body,
    );

    const label = (await operator(t, 'GET', `/shipments/${shipment}/documents/shipping-label`)).rawPayload;
    const [w, h] = pdfInfo(label)
      ['Page size'].split(' ')
      .filter((x) => /^[\d.]+$/.test(x))
      .map(Number);
    assert.ok(Math.abs(w - 100 * MM) < 0.5 && Math.abs(h - 150 * MM) < 0.5, `label is 100 x 150 mm, got ${w}x${h} pt`);
    const text = pdfText(label);
    for (const part of [
      brand.name,
      'SHIP TO',
      'Anna Jansen',
      'Prinsengracht 263',
      '1016 GV Amsterdam',
      'NETHERLANDS',
      'TRACKED',
      'DHL',
      tracking,
      'Industrieweg 12',
      'help@casecraft.example',
    ])
      assert.ok(text.includes(part), `label shows "${part}":\n${text}`);
    assert.equal(pdfImages(label).length, 1, 'the brand logo is on the label');
    const labelPng = keepPage('production', 'shipping-label', renderPage(label, 200));
    assert.deepEqual(await code128Values(labelPng), [tracking], 'the barcode reads as the tracking number');
    const band = await rawPixels(labelPng);
    const [r, g, b] = band.at(band.width - 20, 20);
    assert.deepEqual([r, g, b], [0x0b, 0x5f, 0xff], 'the band is the brand primary colour');

    const slip = (await operator(t, 'GET', `/shipments/${shipment}/documents/packing-slip`)).rawPayload;
    assert.equal(
      pdfInfo(slip)['Page size'].includes('595.') && pdfInfo(slip)['Page size'].includes('841.'),
      true,
      'A4',
    );
    const slipText = pdfText(slip);
    for (const part of [
      'Packing slip',
      shipment,
      'label-test-1',
      'iPhone 15 Clear Case',
      'Anna Jansen',
      'Industrieweg 12',
      'help@casecraft.example',
      '2 items in this parcel',
    ])
      assert.ok(slipText.includes(part), `slip shows "${part}":\n${slipText}`);
    assert.ok(
      !slipText.includes('€') && !/\d+\.\d\d\b(?! kg)/.test(slipText.replace(/\d{4}-\d\d-\d\d/g, '')),
      'no prices on the slip',
    );
    assert.deepEqual(await code128Values(keepPage('production', 'packing-slip', renderPage(slip, 200))), [tracking]);
  });

  it('labels an untracked shipment with the shipment reference and letters beyond Latin-1', {
    skip: popplerMissing,
  }, async () => {
    const body = orderBody(t, await uploadImage(t), {
      dropshipAddress: {
        ...ADDRESS,
        firstname: 'Zoë',
        lastname: 'Łukasiewicz',
        city: 'Kraków',
        countryCode: 'PL',
        zipcode: '30-001',
      },
      dropshipMinimalShippingLevel: 'basic',
    });
    const ref = await createOrder(t, body);
    await startProduction(t, ref);
    const shipment = await ship(t, [ref]);
    await t.s.worker.drain();
    const label = (await operator(t, 'GET', `/shipments/${shipment}/documents/shipping-label`)).rawPayload;
    const text = pdfText(label);
    assert.ok(text.includes('Zoë Łukasiewicz') && text.includes('30-001 Kraków') && text.includes('POLAND'), text);
    assert.ok(text.includes('BASIC') && text.includes('SHIPMENT'), text);
    assert.deepEqual(await code128Values(keepPage('production', 'shipping-label-basic', renderPage(label, 200))), [
      shipment.replace('Shipment_', ''),
    ]);
  });

  it('answers clear errors for unknown shipments and document kinds', async () => {
    expectError(await operator(t, 'GET', '/shipments/Shipment_unknown/documents'), 404, 'not_found');
    expectError(await operator(t, 'GET', '/shipments/x/documents/invoice'), 400, 'invalid_request');
  });

  it('lists the fulfilment queue: waiting, in production, produced and shipped with their files', async () => {
    const waiting = await createOrder(t, orderBody(t, await uploadImage(t)));
    const making = await createOrder(t, orderBody(t, await uploadImage(t)));
    const done = await createOrder(t, orderBody(t, await uploadImage(t)));
    await startProduction(t, making);
    await startProduction(t, done);
    await t.s.worker.drain();
    expectError(await operator(t, 'POST', `/orders/${waiting}/produced`), 409, 'production_not_started');
    assert.equal((await operator(t, 'POST', `/orders/${done}/produced`)).statusCode, 204);
    const q = (await operator(t, 'GET', '/fulfilment-queue')).data;
    const refs = (list: any[]) => list.map((o) => o.reference);
    assert.ok(refs(q.waiting).includes(waiting) && !refs(q.waiting).includes(making));
    assert.ok(refs(q.inProduction).includes(making) && !refs(q.inProduction).includes(done));
    assert.ok(refs(q.readyToShip).includes(done));
    const row = q.inProduction.find((o: any) => o.reference === making);
    assert.equal(row.printFiles[0].status, 'ready');

    const shipped = await operator(t, 'POST', '/shipments', { orderReferences: [done] });
    assert.equal(shipped.statusCode, 200, shipped.body);
    await t.s.worker.drain();
    const after = (await operator(t, 'GET', '/fulfilment-queue')).data;
    const sh = after.shipped.find((x: any) => x.reference === shipped.data.shipment.reference);
    assert.deepEqual(
      sh.documents.map((d: any) => d.status),
      ['ready', 'ready'],
    );
    assert.ok(!refs(after.readyToShip).includes(done));
  });
});
