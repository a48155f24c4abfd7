import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp } from '../support/app.ts';
import { type Agent, OPERATOR_USER, PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { unitsInProduction } from './floor-helpers.ts';

describe('console scan stations', () => {
  let t: TestApp;
  let op: Agent;
  before(async () => {
    t = await createTestApp();
    op = await signedIn(t, OPERATOR_USER, 'console');
  });
  after(async () => t.close());
  const scan = (station: string, form: Record<string, string>) =>
    op.submit(`/console/production/stations/${station}`, form, `/console/production/stations/${station}`);

  it('shows what to do next in large type with an autofocused scan input', async () => {
    for (const station of ['qc', 'pack', 'picking']) {
      const page = await op.get(`/console/production/stations/${station}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<p class="next" aria-live="polite">[^<]+<\/p>/);
      assert.match(page.body, /<input id="code" name="code" [^>]*autofocus/);
      assert.match(page.body, /<script src="\/console\/production\/stations\/station.js" defer>/);
    }
    const js = await op.get('/console/production/stations/station.js');
    assert.equal(js.statusCode, 200);
    assert.match(js.body, /createOscillator/);
  });

  it('passes, fails and packs through the forms; a wrong scan is refused with the reason and the alarm', async () => {
    const { ref, units } = await unitsInProduction(t, 2);
    const [a, b] = units;
    let res = await scan('qc', { code: a, verdict: 'pass' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(
      res.body,
      /class="outcome ok" role="status" data-sound="ok"><p class="headline">Passed: put it in the packing tray/,
    );

    res = await scan('qc', { code: a, verdict: 'pass' });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /class="outcome error" role="alert" data-sound="error"/);
    assert.ok(textOf(res.body).includes(`${a} passed QC already: take it to packing`));

    res = await scan('qc', { code: 'not-a-case', verdict: 'pass' });
    assert.equal(res.statusCode, 400);
    assert.ok(textOf(res.body).includes('is not a case’s code'));

    res = await scan('qc', { code: b, verdict: 'misprint' });
    assert.equal(res.statusCode, 200);
    assert.match(
      textOf(res.body),
      /Failed \(misprint\): put it in the scrap bin .* A new blank was taken from stock; the case is queued for a later batch\. The factory bears the cost\./,
    );

    res = await scan('pack', { code: a });
    assert.equal(res.statusCode, 200);
    const text = textOf(res.body);
    assert.match(text, /1 of 2 cases here: keep the parcel open/);
    assert.ok(text.includes(`${b} : is not printed yet`), text);
    assert.match(text, /Add from the shelf: 1 × iPhone 15 Tempered Glass Screen Protector/);

    res = await scan('qc', { code: b, verdict: 'nonsense' });
    assert.equal(res.statusCode, 400);
    res = await scan('picking', { code: b, problem: 'blank_damaged_at_picking' });
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /Take a new blank from the bin for this slot/);
    assert.ok(ref);
  });

  it('ships the parcel from the pack station once every case is there, with the label and slip to print', async () => {
    const { ref, units } = await unitsInProduction(t, 1);
    await scan('qc', { code: units[0], verdict: 'pass' });
    const res = await scan('pack', { code: units[0] });
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /Parcel complete: print the label and the packing slip/);
    const shipment = /(Shipment_[0-9a-z]{26})\/shipping-label/.exec(res.body)?.[1];
    assert.ok(shipment, 'a link to the label');
    assert.ok(textOf(res.body).includes(`${ref} shipped as ${shipment}`));
    await t.s.worker.drain();
    const label = await op.get(`/console/production/shipments/${shipment}/shipping-label`);
    assert.equal(label.statusCode, 200);
    assert.equal(label.headers['content-type'], 'application/pdf');
  });

  it('is the operator’s alone', async () => {
    const partner = await signedIn(t, PARTNER);
    assert.notEqual((await partner.get('/console/production/stations/qc')).statusCode, 200);
  });
});
