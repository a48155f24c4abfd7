import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { saxonMissing, schematronFailures, xmllintMissing, xsdErrors } from '../support/ubl-tools.ts';

const TO_GERMANY = { ...ADDRESS, streetname: 'Hohe Straße', zipcode: '50667', city: 'Köln', countryCode: 'DE' };
const TO_USA = {
  ...ADDRESS,
  streetname: 'Broadway',
  zipcode: '10001',
  city: 'New York',
  state: 'NY',
  countryCode: 'US',
};

describe('invoices and credit notes as UBL 2.1 (Peppol BIS Billing 3.0)', () => {
  let t: TestApp;
  /** Every kind of document, by name: its UBL. */
  const docs: Record<string, string> = {};
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    const order = async (code: string, to: Record<string, string>, key = t.key) => {
      const ref = await createOrder(
        t,
        {
          order: {
            storeReference: store(t, code),
            shippingKind: 'dropship',
            customIdentifier: `shop-${code}-${to.countryCode}`,
            dropshipAddress: to,
            orderlines: [{ productReference: products(t).protector, quantity: 2 }],
          },
        },
        key,
      );
      assert.equal((await operator(t, 'POST', `/orders/${ref}/start-production`)).statusCode, 204);
    };
    await order('DEMO1', ADDRESS);
    await order('DEMO1', TO_USA);
    await order('OTHER1', TO_GERMANY, t.otherKey);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const issued = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.equal(issued.statusCode, 200, issued.body);
    const ubl = async (ref: string) => {
      const res = await operator(t, 'GET', `/invoices/${ref}/ubl`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.headers['content-type'] as string, /application\/xml/);
      return res.body;
    };
    for (const inv of issued.data.invoices) docs[inv.vatTreatment] = await ubl(inv.reference);
    const mixed = issued.data.invoices.find((i: any) => i.vatTreatment === 'mixed');
    const cn = await operator(t, 'POST', `/invoices/${mixed.reference}/credit-notes`, { reason: 'price correction' });
    assert.equal(cn.statusCode, 200, cn.body);
    docs.creditNote = await ubl(cn.data.invoice.reference);
  });
  after(() => t.close());

  it('makes every kind: Dutch VAT and export on one invoice, an intra-Community supply, a credit note', () => {
    assert.deepEqual(Object.keys(docs).sort(), ['creditNote', 'mixed', 'reverse_charge']);
    assert.match(docs.mixed, /<cbc:ID>S<\/cbc:ID><cbc:Percent>21<\/cbc:Percent>/);
    assert.match(docs.mixed, /<cbc:TaxExemptionReasonCode>VATEX-EU-G<\/cbc:TaxExemptionReasonCode>/);
    assert.match(docs.reverse_charge, /VATEX-EU-IC/);
    assert.match(docs.reverse_charge, /Article 138\(1\)/);
    assert.match(docs.reverse_charge, /<cac:Delivery>.*<cbc:IdentificationCode>DE</s);
    assert.match(docs.creditNote, /^<\?xml[^>]*>\n<CreditNote /);
    assert.match(docs.creditNote, /<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>INV-2026-/);
    assert.match(docs.mixed, /your reference shop-DEMO1-US/);
  });

  it('every document is valid against the official UBL 2.1 schema', { skip: xmllintMissing }, () => {
    for (const [name, xml] of Object.entries(docs))
      assert.equal(xsdErrors(xml, name === 'creditNote' ? 'CreditNote' : 'Invoice'), '', name);
  });

  it('every document passes the EN 16931 rules (CEN Schematron) without a fatal error or a warning', {
    skip: saxonMissing,
  }, () => {
    const failures = schematronFailures(docs);
    assert.deepEqual(Object.keys(failures).sort(), Object.keys(docs).sort());
    for (const [name, failed] of Object.entries(failures)) assert.deepEqual(failed, [], name);
  });

  it('every document passes the Peppol BIS 3.0 rules (OpenPeppol Schematron) without a fatal error or a warning', {
    skip: saxonMissing,
  }, () => {
    const failures = schematronFailures(docs, 'peppol');
    assert.deepEqual(Object.keys(failures).sort(), Object.keys(docs).sort());
    for (const [name, failed] of Object.entries(failures)) assert.deepEqual(failed, [], name);
  });

  it('a document that breaks a Peppol rule fails it: the Peppol check is not a formality', {
    skip: saxonMissing,
  }, () => {
    // PEPPOL-EN16931-R003: a buyer reference or an order reference must be given.
    const broken = docs.mixed.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, '');
    assert.notEqual(broken, docs.mixed);
    assert.ok(
      schematronFailures({ broken }, 'peppol').broken.some((f) => f[0] === 'PEPPOL-EN16931-R003'),
      'the missing buyer reference is found',
    );
  });

  it('a broken document fails both: the validators are not a formality', {
    skip: xmllintMissing || saxonMissing,
  }, () => {
    const broken = docs.mixed.replace(
      /<cbc:PayableAmount currencyID="EUR">[^<]*</,
      '<cbc:PayableAmount currencyID="EUR">1.00<',
    );
    assert.deepEqual(
      schematronFailures({ broken }).broken.map((f) => f[0]),
      ['BR-CO-16'],
    );
    assert.match(
      xsdErrors(docs.mixed.replace('<cbc:IssueDate>', '<cbc:Issued>x</cbc:Issued><cbc:IssueDate>'), 'Invoice'),
      /Issued/,
    );
  });
});
