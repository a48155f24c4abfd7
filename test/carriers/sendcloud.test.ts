import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, expectError, orderBody, startProduction, uploadImage } from '../orders/helpers.ts';
import { OPERATOR_USER, signedIn } from '../dashboard/helpers.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';
import { SendcloudStandIn } from '../support/sendcloud-standin.ts';

describe('shipping through Sendcloud (stand-in)', () => {
  let t: TestApp;
  let sc: SendcloudStandIn;
  let image: string;
  before(async () => {
    sc = await new SendcloudStandIn().start();
    t = await createTestApp({ env: sc.env });
    image = await uploadImage(t);
  });
  after(async () => {
    await t.close();
    await sc.stop();
  });

  const shipTo = async (address: Record<string, string>, level = 'tracked') => {
    const ref = await createOrder(
      t,
      orderBody(t, image, { dropshipAddress: address, dropshipMinimalShippingLevel: level }),
    );
    await startProduction(t, ref);
    const res = await call(t, 'POST', '/v2/test-helpers/shipments', { body: { shipment: { orderReferences: [ref] } } });
    assert.equal(res.statusCode, 200, res.body);
    return res.data.shipment.reference as string;
  };
  const row = (ref: string) => t.s.shipments.shipmentRow(t.db, t.seed.organizations[0].reference, ref);

  it('answers at once, then announces the parcel and stores the carrier label and tracking number', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL', zipcode: '1013 AB', city: 'Amsterdam' });
    const pending = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment;
    assert.equal(pending.trackingNumber, null, 'no number before the carrier gave one');
    assert.equal((await row(ref))!.label_state, 'pending');
    await t.s.worker.drain();
    assert.deepEqual(sc.invalid, [], 'every request matched the published schema');
    const p = sc.byReference(ref)!;
    assert.ok(p, 'announced with the shipment reference as external_reference_id');
    assert.equal(p.request.ship_with.properties.shipping_option_code, 'postnl:standard');
    // Two clear cases of the catalog's weight plus the packaging.
    const lines = p.request.parcels[0].parcel_items;
    assert.equal(lines[0].quantity, 2);
    const grams = 40 + 2 * Math.round(lines[0].weight.value * 1000);
    assert.equal(p.request.parcels[0].weight.value, (grams / 1000).toFixed(3));
    assert.equal(p.request.customs_information, undefined, 'no customs inside the EU');
    const s = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment;
    assert.equal(s.carrier, 'PostNL');
    assert.equal(s.trackingNumber, p.trackingNumber);
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'announced');
    const pdf = (await t.s.shipments.announce.document(ref, 'label')).bytes;
    assert.ok(pdf.subarray(0, 5).toString() === '%PDF-', 'the carrier label is stored as a PDF');
    // PostNL prints ZPL natively: the thermal printers' label is kept too.
    const zpl = (await t.s.shipments.announce.document(ref, 'label-zpl')).bytes.toString();
    assert.match(zpl, /^\^XA[\s\S]*\^BCN[\s\S]*\^XZ$/);
    assert.ok(zpl.includes(`^FD${p.trackingNumber}^FS`), 'the ZPL carries the tracking barcode');
    const asked = sc.requests.filter((q) => q.path.startsWith(`/api/v3/parcels/${p.id}/documents/label`));
    assert.equal(asked.length, 1, 'the PDF came with the announcement; only the ZPL was fetched');
  });

  it('keeps the PDF alone when the carrier gives no ZPL label', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'DE', zipcode: '10115', city: 'Berlin' });
    await t.s.worker.drain();
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'announced');
    assert.equal(sc.byReference(ref)!.carrier.code, 'dhl');
    assert.equal(r.label_zpl_blob, null);
    await assert.rejects(t.s.shipments.announce.document(ref, 'label-zpl'), /ZPL label of shipment/);
    assert.ok((await t.s.shipments.announce.document(ref, 'label')).bytes.subarray(0, 5).toString() === '%PDF-');
    assert.deepEqual(sc.invalid, [], 'paper size and Accept header as Sendcloud documents them');
  });

  it('sends value, HS code and a customs declaration outside the EU', async () => {
    const ref = await shipTo({
      ...ADDRESS,
      countryCode: 'US',
      zipcode: '10036',
      city: 'New York',
      state: 'NY',
    });
    await t.s.worker.drain();
    assert.deepEqual(sc.invalid, []);
    const p = sc.byReference(ref)!;
    assert.equal(p.request.customs_information.invoice_number, ref);
    assert.equal(p.request.to_address.state_province_code, 'US-NY', 'the state as ISO 3166-2');
    assert.equal(p.request.customs_information.export_reason, 'commercial_goods');
    assert.equal(p.request.parcels[0].parcel_items[0].hs_code, '392690');
    assert.match(p.request.parcels[0].parcel_items[0].price.value, /^\d+\.\d{2}$/);
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'announced');
    // The carrier's customs declaration is fetched, kept beside the label and served to the operator.
    const asked = sc.requests.filter((q) => q.path === `/api/v3/parcels/${p.id}/documents/customs-declaration`);
    assert.equal(asked.length, 1, 'the customs-declaration document, in its own (A4) paper size');
    const cn23 = (await t.s.shipments.announce.document(ref, 'customs-declaration')).bytes;
    assert.ok(cn23.equals(p.customs!), 'the CN23 Sendcloud answered is stored as it came');
    const api = await operator(t, 'GET', `/shipments/${ref}/carrier-documents/customs-declaration`);
    assert.equal(api.statusCode, 200);
    assert.equal(api.headers['content-type'], 'application/pdf');
    assert.ok(api.rawPayload.equals(cn23));
    if (!popplerMissing) {
      const text = pdfText(cn23);
      assert.match(text, /CN 23/);
      assert.ok(text.includes('392690') && text.includes(ref), 'HS code and the invoice number on the declaration');
    }
    const op = await signedIn(t, OPERATOR_USER, 'console');
    assert.ok(
      (await op.get(`/console/shipments/${ref}`)).body.includes(`/console/shipments/${ref}/customs-declaration.pdf`),
    );
    const file = await op.get(`/console/shipments/${ref}/customs-declaration.pdf`);
    assert.equal(file.statusCode, 200);
    assert.ok(file.rawPayload.equals(cn23));
  });

  it('has no customs declaration inside the EU, and says which document is missing', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL', zipcode: '1013 AB', city: 'Amsterdam' });
    await t.s.worker.drain();
    const r = (await row(ref))!;
    assert.equal(r.customs_blob, null);
    const id = sc.byReference(ref)!.id;
    assert.ok(!sc.requests.some((q) => q.path.includes(`/parcels/${id}/documents/customs-declaration`)), 'not asked');
    const missing = await operator(t, 'GET', `/shipments/${ref}/carrier-documents/customs-declaration`);
    expectError(missing, 404, 'not_found');
    const label = await operator(t, 'GET', `/shipments/${ref}/carrier-documents/label`);
    assert.equal(label.statusCode, 200);
    assert.equal(label.rawPayload.subarray(0, 5).toString(), '%PDF-');
    expectError(await operator(t, 'GET', `/shipments/${ref}/carrier-documents/invoice`), 400, 'invalid_request');
    expectError(await operator(t, 'GET', `/shipments/Shipment_nope/carrier-documents/label`), 404, 'not_found');
  });

  it("shows the carrier's refusal verbatim, never truncates, and announces again on the operator's retry", async () => {
    const long = 'Schiedamse Vest Achterzijde Bedrijfsverzamelgebouw';
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL', streetname: long });
    await t.s.worker.drain();
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'refused');
    assert.equal(r.attention, 'refused');
    assert.match(r.carrier_error!, /\/to_address\/address_line_1: Ensure this field has no more than 35 characters/);
    assert.equal(sc.byReference(ref), undefined);
    assert.equal(sc.requests.at(-1)!.body.to_address.address_line_1, long, 'sent whole');
    const again = await operator(t, 'POST', `/shipments/${ref}/announce`, {});
    assert.equal(again.statusCode, 202, again.body);
    await t.s.worker.drain();
    assert.equal((await row(ref))!.label_state, 'refused', 'still too long: refused again, visible');
    const notRefused = await operator(t, 'POST', `/shipments/${(await shipTo(ADDRESS)).toString()}/announce`, {});
    assert.equal(notRefused.statusCode, 409);
    assert.equal(notRefused.data.code, 'shipment_not_refused');
  });

  it('lets the operator correct a refused address: the shipment gets it, the parcel is announced with it', async () => {
    const long = 'Schiedamse Vest Achterzijde Bedrijfsverzamelgebouw';
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL', streetname: long });
    await t.s.worker.drain();
    const before = (await row(ref))!;
    assert.equal(before.label_state, 'refused');
    const put = (address: Record<string, string>) => operator(t, 'PUT', `/shipments/${ref}/address`, { address });
    expectError(await put({ ...ADDRESS, countryCode: 'BE', zipcode: '1000', city: 'Brussel' }), 400, 'invalid_request');
    expectError(await put({ ...ADDRESS, zipcode: '' }), 400, 'invalid_address');
    assert.equal((await row(ref))!.label_state, 'refused', 'a refused correction changes nothing');
    const fixed = { ...ADDRESS, streetname: 'Schiedamse Vest', additionalInfo: 'Achterzijde' };
    const res = await put(fixed);
    assert.equal(res.statusCode, 202, res.body);
    await t.s.worker.drain();
    const after = (await row(ref))!;
    assert.equal(after.label_state, 'announced');
    assert.equal(after.attention, null, 'no longer needs attention');
    assert.notEqual(after.address_id, before.address_id);
    const sent = sc.byReference(ref)!.request.to_address;
    assert.equal(sent.address_line_1, 'Schiedamse Vest');
    assert.equal(sent.address_line_2, 'Achterzijde');
    assert.deepEqual(sc.invalid, []);
    const s = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment;
    assert.equal(s.addressReference, after.address_id);
    const order = (await call(t, 'GET', `/v2/orders/${s.orders[0].reference}`)).data.order;
    const orderAddress = (await call(t, 'GET', `/v2/addresses/${order.dropshipAddressReference}`)).data.address;
    assert.equal(orderAddress.streetname, long, 'the order keeps the address it was placed with');
    expectError(await put(fixed), 409, 'shipment_not_refused');
  });

  it('retries while Sendcloud is down, shows the failure, and never announces twice', async () => {
    await t.s.worker.drain();
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    sc.failures.push(503);
    await t.s.worker.drain();
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'pending');
    assert.match(r.carrier_error!, /Attempt 1 failed: Sendcloud answered 503: .*connecting to the carrier/);
    // The retry comes due; the same shipment announced twice is answered with the first parcel.
    await t.db.query(`UPDATE jobs SET run_at = '2000-01-01' WHERE kind = 'shipment.announce' AND status = 'pending'`);
    await t.s.worker.drain();
    const first = sc.byReference(ref)!;
    assert.equal((await row(ref))!.tracking_number, first.trackingNumber);
    // A crash after Sendcloud answered: the job runs again on a shipment still pending.
    await t.db.query(`UPDATE shipments SET label_state = 'pending' WHERE id = $1`, [ref]);
    await t.s.shipments.announce.run(ref, 1, false);
    assert.equal([...sc.parcels.values()].filter((p) => p.reference === ref).length, 1, 'one parcel at Sendcloud');
    assert.equal((await row(ref))!.tracking_number, first.trackingNumber);
    assert.equal((await row(ref))!.carrier_error, null);
  });

  it('after the last failed attempt the parcel waits refused, visible, and the retry announces it once', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    sc.failures.push(502);
    await t.s.shipments.announce.run(ref, 12, true).catch(() => {});
    const r = (await row(ref))!;
    assert.equal(r.label_state, 'refused');
    assert.equal(r.attention, 'refused', 'listed under needs attention');
    assert.match(
      r.carrier_error!,
      /Attempt 12 \(the last\) failed: Sendcloud answered 502.*Retry once the carrier answers again/,
    );
    assert.equal(sc.byReference(ref), undefined, 'nothing announced while Sendcloud was down');
    // The job still queued for this shipment finds it refused and leaves it alone.
    await t.s.worker.drain();
    assert.equal((await row(ref))!.label_state, 'refused');
    assert.equal((await operator(t, 'POST', `/shipments/${ref}/announce`, {})).statusCode, 202);
    await t.s.worker.drain();
    assert.equal((await row(ref))!.label_state, 'announced');
    assert.equal([...sc.parcels.values()].filter((p) => p.reference === ref).length, 1);
    assert.equal((await row(ref))!.carrier_error, null);
  });

  const post = (raw: string, signature: string) =>
    t.app.inject({
      method: 'POST',
      url: '/integrations/sendcloud/webhooks',
      headers: { 'content-type': 'application/json', 'sendcloud-signature': signature },
      payload: raw,
    });
  const statuses = async (ref: string) =>
    await t.db.query<{ code: string; mapped_status: string | null }>(
      'SELECT code, mapped_status FROM carrier_statuses WHERE shipment_id = $1 ORDER BY seq',
      [ref],
    );

  it('takes signed parcel-status webhooks as tracking: delivered refuses a package-missing claim', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    await t.s.worker.drain();
    const p = sc.byReference(ref)!;
    const forged = sc.webhook(p, { id: 11, message: 'Delivered' }, new Date(), 'not-the-key');
    const bad = await post(forged.raw, forged.signature);
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().code, 'unauthorized');
    assert.deepEqual(await statuses(ref), [], 'nothing stored from a forged webhook');

    const odd = sc.webhook(p, { id: 4242, message: 'Something new' });
    assert.equal((await post(odd.raw, odd.signature)).statusCode, 200);
    const transit = sc.webhook(p, { id: 3, message: 'En route to sorting center' });
    assert.equal((await post(transit.raw, transit.signature)).statusCode, 200);
    const delivered = sc.webhook(p, { id: 11, message: 'Delivered' }, new Date(Date.now() + 1000));
    assert.equal((await post(delivered.raw, delivered.signature)).statusCode, 200);
    assert.equal((await post(delivered.raw, delivered.signature)).json().stored, 0, 'a repeat stores nothing');
    assert.deepEqual(await statuses(ref), [
      { code: '4242', mapped_status: null },
      { code: '3', mapped_status: 'in_transit' },
      { code: '11', mapped_status: 'delivered' },
    ]);
    const s = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment;
    assert.equal(s.trackingStatus, 'delivered');
    assert.deepEqual(
      s.trackingEvents.map((e: any) => e.status),
      ['in_transit', 'delivered'],
      'the unknown status is kept, not a tracking event',
    );
    assert.ok((await row(ref))!.delivered_at);
    const claim = await call(t, 'POST', '/v2/claim-package-missing', { body: { claim: { shipmentReference: ref } } });
    assert.equal(claim.statusCode, 409, claim.body);
    assert.equal(claim.data.code, 'shipment_delivered');
  });

  it('refuses a webhook whose text PostgreSQL cannot store (a NUL, a lone surrogate), storing nothing', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    await t.s.worker.drain();
    const p = sc.byReference(ref)!;
    for (const message of ['Delivered\u0000', 'Delivered \ud800']) {
      const hook = sc.webhook(p, { id: 11, message });
      const res = await post(hook.raw, hook.signature);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'invalid_request');
      assert.match(res.json().message, /^body\.parcel\.status\.message /);
    }
    assert.deepEqual(await statuses(ref), []);
    assert.equal((await row(ref))!.delivered_at, null);
  });

  it('acknowledges a status for a parcel no shipment knows, and flags an exception for the operator', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    await t.s.worker.drain();
    const p = sc.byReference(ref)!;
    const stranger = sc.webhook({ ...p, id: 999 }, { id: 11, message: 'Delivered' });
    const warned: object[] = [];
    const warn = t.s.log.warn;
    t.s.log.warn = ((obj: object) => warned.push(obj)) as typeof warn;
    try {
      for (const _ of [1, 2]) {
        const res = await post(stranger.raw, stranger.signature);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { received: true, stored: 0, ignored: 1 });
      }
    } finally {
      t.s.log.warn = warn;
    }
    assert.deepEqual(warned, [{ carrier: 'sendcloud', parcelId: '999', status: '11' }], 'logged once');
    const stuck = sc.webhook(p, { id: 8, message: 'Delivery attempt failed' });
    assert.equal((await post(stuck.raw, stuck.signature)).statusCode, 200);
    assert.equal((await row(ref))!.attention, 'exception');
    // A stuck parcel's package-missing claim need not wait for the delivery window.
    const claim = await call(t, 'POST', '/v2/claim-package-missing', { body: { claim: { shipmentReference: ref } } });
    assert.equal(claim.statusCode, 200, claim.body);
  });

  it('asks Sendcloud about parcels it has not heard of for a day, and takes what it answers as tracking', async () => {
    const ref = await shipTo({ ...ADDRESS, countryCode: 'NL' });
    await t.s.worker.drain();
    const p = sc.byReference(ref)!;
    await t.s.shipments.checkTracking();
    assert.ok(!sc.requests.some((r) => r.path.includes(`external_reference_id=${ref}`)), 'not asked within the day');
    t.clock.advance(25 * 3600_000);
    p.status = { code: 'DELIVERED', message: 'Delivered' };
    p.updatedAt = new Date(t.clock.now().getTime() - 3600_000).toISOString();
    await t.s.shipments.checkTracking();
    assert.ok(sc.requests.some((r) => r.method === 'GET' && r.path.includes(`external_reference_id=${ref}`)));
    const s = (await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment;
    assert.equal(s.trackingStatus, 'delivered');
    assert.equal((await row(ref))!.delivered_at?.toISOString(), p.updatedAt);
    // Asked again the next day, the same answer adds nothing.
    t.clock.advance(25 * 3600_000);
    await t.s.shipments.checkTracking();
    assert.equal((await call(t, 'GET', `/v2/shipments/${ref}`)).data.shipment.trackingEvents.length, 1);
  });
});
