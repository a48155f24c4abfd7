import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store, uploadImage } from '../orders/helpers.ts';
import { categories, itemIssues } from '../claims/helpers.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';
import { scheduleMaintenance } from '../../src/modules/maintenance/jobs.ts';

const accountOf = async (t: TestApp, code: string) =>
  (await t.db.query<{ account_id: string }>('SELECT account_id FROM stores WHERE code = $1', [code]))[0].account_id;
const account = async (t: TestApp, ref: string, key = t.key) => {
  const res = await call(t, 'GET', `/v2/accounts/${ref}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.account;
};
const ledger = async (t: TestApp, ref: string) => {
  const res = await operator(t, 'GET', `/accounts/${ref}/ledger?limit=100`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data;
};
const orderView = async (t: TestApp, ref: string, key = t.key) =>
  (await call(t, 'GET', `/v2/orders/${ref}`, { key })).data.order;
/** The order's amount as the order shows it (products at their prices, plus shipping). */
async function amountOf(t: TestApp, ref: string): Promise<number> {
  const [o] = await t.db.query<{ n: string }>(
    `SELECT (SELECT sum(unit_price_cents * (quantity - canceled_quantity)) FROM orderlines WHERE order_id = $1) + shipping_cents AS n
     FROM orders WHERE id = $1`,
    [ref],
  );
  return Number(o.n);
}
describe('money in production', () => {
  let t: TestApp;
  let acc: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    acc = await accountOf(t, 'DEMO1');
  });
  after(() => t.close());

  const produce = (ref: string) => operator(t, 'POST', `/orders/${ref}/start-production`);
  const newOrder = async (quantity = 2) => {
    const image = await uploadImage(t);
    return createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO1'),
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).clear, imageReference: image, quantity }],
      },
    });
  };

  it('charges the order as it shows at production start; the balance is the sum of the ledger', async () => {
    const start = (await account(t, acc)).balance;
    assert.equal(start, 125000, 'the seed opening balance');
    const order = await newOrder(2);
    assert.equal((await account(t, acc)).balance, start, 'nothing is charged before production');
    assert.equal((await produce(order)).statusCode, 204);
    const amount = await amountOf(t, order);
    assert.ok(amount > 0);
    const view = await account(t, acc);
    assert.equal(view.balance, start - amount);
    assert.equal(view.wouldBeBalance, null);
    const l = await ledger(t, acc);
    assert.equal(l.entries[0].kind, 'charge');
    assert.equal(l.entries[0].amount, -amount);
    assert.equal(l.entries[0].orderReference, order);
    assert.equal(l.entries[0].simulated, false);
    assert.equal(
      l.entries.reduce((s: number, e: any) => s + e.amount, 0),
      view.balance,
    );
  });

  it('credits a refund decided on a claim once, with the shipping where the decision says so; replacements are free', async () => {
    const order = await newOrder(2);
    assert.equal((await produce(order)).statusCode, 204);
    const shipped = await operator(t, 'POST', '/shipments', { orderReferences: [order] });
    assert.equal(shipped.statusCode, 200, shipped.body);
    const cat = await categories(t);
    const claim = await itemIssues(t, {
      shipmentReference: shipped.data.shipment.reference,
      orderReference: order,
      claimlines: [{ orderlineIndex: 1, quantity: 2, claimcategoryReference: cat['Wrong item'] }],
    });
    assert.equal(claim.statusCode, 200, claim.body);
    const ref = claim.data.claim.reference;
    const before = (await account(t, acc)).balance;
    const body = {
      decision: {
        status: 'resolved',
        refundShippingCosts: true,
        comment: 'one replaced, one refunded',
        claimlines: [
          { orderlineIndex: 1, replacementQuantity: 1, refundQuantity: 1, rejectionQuantity: 0, comment: '' },
        ],
      },
    };
    const [first, second] = await Promise.all([
      operator(t, 'POST', `/claims/${ref}/decide`, body),
      operator(t, 'POST', `/claims/${ref}/decide`, body),
    ]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [204, 409], `${first.body} ${second.body}`);
    const [{ unit_price_cents, shipping_cents }] = await t.db.query<{
      unit_price_cents: number;
      shipping_cents: number;
    }>(
      'SELECT l.unit_price_cents, o.shipping_cents FROM orderlines l JOIN orders o ON o.id = l.order_id WHERE o.id = $1',
      [order],
    );
    assert.equal((await account(t, acc)).balance, before + unit_price_cents + shipping_cents);
    const refunds = (await ledger(t, acc)).entries.filter((e: any) => e.kind === 'refund');
    assert.equal(refunds.length, 2);
    assert.deepEqual(refunds.map((e: any) => e.amount).sort(), [unit_price_cents, shipping_cents].sort());

    // The same refund booked again (a retried job, a second path) is not credited twice.
    const again = await t.s.db.tx((tx) =>
      t.s.billing.creditRefund(tx, {
        organizationId: t.seed.organizations[0].reference,
        storeId: store(t, 'DEMO1'),
        claimId: ref,
        orderId: order,
        source: `${ref}:${order}`,
        amountCents: unit_price_cents,
        description: 'again',
      }),
    );
    assert.equal(again, false);
    assert.equal((await account(t, acc)).balance, before + unit_price_cents + shipping_cents);

    const replacement = (await call(t, 'GET', `/v2/claims/${ref}`)).data.claim.replacementOrderReferences[0];
    const beforeReplacement = (await account(t, acc)).balance;
    assert.equal((await produce(replacement)).statusCode, 204);
    assert.equal((await account(t, acc)).balance, beforeReplacement, 'a replacement costs nothing');
  });

  it('a prepaid account without the balance keeps its order pending until a top-up releases it', async () => {
    const org = t.seed.organizations[0].reference;
    const created = await operator(t, 'POST', `/organizations/${org}/accounts`, {
      name: 'Prepaid shop',
      prepaid: true,
      balance: 100,
      legalEntity: { name: 'Prepaid Shop B.V.' },
      billingAddress: ADDRESS,
    });
    assert.equal(created.statusCode, 200, created.body);
    const prepaid = created.data.account.reference;
    assert.equal(created.data.account.prepaid, true);
    const st = await operator(t, 'POST', `/organizations/${org}/stores`, {
      name: 'Prepaid store',
      code: 'PREPAID1',
      integration: 'api',
      accountReference: prepaid,
    });
    assert.equal(st.statusCode, 200, st.body);
    const order = await createOrder(t, {
      order: {
        storeReference: st.data.store.reference,
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    const refused = await produce(order);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.data.code, 'insufficient_balance');
    assert.equal((await orderView(t, order)).status.code, 'pending');
    assert.equal((await account(t, prepaid)).balance, 100);

    const paid = await operator(t, 'POST', `/accounts/${prepaid}/payments`, {
      amount: 10_000,
      note: 'bank transfer 42',
    });
    assert.equal(paid.statusCode, 200, paid.body);
    // The top-up releases the held order into production by itself.
    assert.equal((await orderView(t, order)).status.code, 'in_production');
    assert.equal((await produce(order)).statusCode, 409, 'started once');
    assert.equal((await account(t, prepaid)).balance, 10_100 - (await amountOf(t, order)));
  });

  it('issues monthly invoices with gap-free numbers, immutable, as PDFs; corrections are credit notes', async () => {
    // Other Prints (DE, with a VAT number) has goods shipped to Germany: an intra-Community supply.
    const otherAcc = await accountOf(t, 'OTHER1');
    const otherOrder = await createOrder(
      t,
      {
        order: {
          storeReference: store(t, 'OTHER1'),
          shippingKind: 'dropship',
          dropshipAddress: { ...ADDRESS, streetname: 'Hohe Straße', zipcode: '50667', city: 'Köln', countryCode: 'DE' },
          orderlines: [{ productReference: products(t).protector, quantity: 1 }],
        },
      },
      t.otherKey,
    );
    assert.equal((await produce(otherOrder)).statusCode, 204);

    const early = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.equal(early.statusCode, 400, 'a month still running is not invoiced');

    t.clock.set('2026-11-01T03:00:00.000Z');
    const issued = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.equal(issued.statusCode, 200, issued.body);
    const numbers = issued.data.invoices.map((i: any) => i.number).sort();
    assert.ok(numbers.length >= 2, issued.body);
    assert.deepEqual(
      numbers,
      numbers.map((_: string, i: number) => `INV-2026-${String(i + 1).padStart(6, '0')}`),
    );
    const again = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    assert.deepEqual(again.data.invoices, [], 'one invoice per account and month');

    const nl = issued.data.invoices.find((i: any) => i.accountReference === acc);
    const de = issued.data.invoices.find((i: any) => i.accountReference === otherAcc);
    assert.equal(nl.vatTreatment, 'domestic');
    assert.equal(nl.vatRatePercent, 21);
    assert.equal(nl.total, nl.net + nl.vat);
    assert.equal(nl.vat, Math.round(nl.net * 0.21));
    assert.equal(de.vatTreatment, 'reverse_charge');
    assert.equal(de.vat, 0);
    // One line per order line and one for each order's shipping, each with its VAT rate.
    const items = nl.lines.filter((l: any) => l.kind === 'item');
    assert.ok(items.length > 0);
    for (const l of items) {
      assert.ok(l.description && l.sku, JSON.stringify(l));
      assert.equal(l.netCents, l.quantity * l.unitPriceCents);
      assert.deepEqual(l.vat, { treatment: 'domestic', category: 'S', ratePercent: 21 });
      assert.match(l.order.store, /\(DEMO1\)/);
      assert.equal(l.order.shipTo, 'NL');
    }
    assert.ok(nl.lines.some((l: any) => l.kind === 'shipping' && l.netCents > 0));
    assert.deepEqual(
      nl.vatBreakdown.map((g: any) => [g.category, g.ratePercent, g.net, g.vat]),
      [['S', 21, nl.net, nl.vat]],
    );
    assert.deepEqual(
      de.vatBreakdown.map((g: any) => [g.category, g.ratePercent, g.vat]),
      [['K', 0, 0]],
    );
    assert.match(de.vatBreakdown[0].note, /Article 138\(1\)/);
    assert.ok(
      nl.lines.some((l: any) => l.claimReference && l.netCents < 0),
      'the refund is a line',
    );

    const pdf = await operator(t, 'GET', `/invoices/${nl.reference}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    // Without poppler the document's text cannot be read; everything else still runs.
    if (!popplerMissing) {
      const text = pdfText(pdf.rawPayload);
      assert.match(text, new RegExp(`Invoice ${nl.number}`));
      assert.match(text, /Demo Cases/);
      assert.match(text, /NL123456782B01/);
      assert.match(text, /Prinsengracht|Amsterdam/);
      assert.match(text, /VAT 21 %/);
      for (const l of nl.lines) if (l.orderReference) assert.ok(text.includes(l.orderReference), l.orderReference);
      assert.ok(text.includes(`EUR ${(nl.total / 100).toLocaleString('en-GB', { minimumFractionDigits: 2 })}`), text);
      const dePdf = pdfText((await operator(t, 'GET', `/invoices/${de.reference}/pdf`)).rawPayload);
      assert.match(dePdf, /Article 138\(1\)/);
      assert.match(dePdf, /Reverse\s+charge/);
      assert.match(dePdf, /NL859999993B01/);
      assert.match(dePdf, /DE\d{9}/, 'both VAT numbers');
    }
    // The same invoice gives the same document.
    assert.deepEqual((await operator(t, 'GET', `/invoices/${nl.reference}/pdf`)).rawPayload, pdf.rawPayload);

    await assert.rejects(
      t.db.query('UPDATE invoices SET total_cents = 0 WHERE id = $1', [nl.reference]),
      /cannot change/,
    );

    const before = (await account(t, acc)).balance;
    const cn = await operator(t, 'POST', `/invoices/${nl.reference}/credit-notes`, { reason: 'price error', net: 500 });
    assert.equal(cn.statusCode, 200, cn.body);
    assert.equal(cn.data.invoice.number, 'CN-2026-000001');
    assert.equal(cn.data.invoice.total, -605);
    assert.equal(cn.data.invoice.correctsInvoiceReference, nl.reference);
    assert.equal((await account(t, acc)).balance, before + 500);
    if (!popplerMissing) {
      const cnText = pdfText((await operator(t, 'GET', `/invoices/${cn.data.invoice.reference}/pdf`)).rawPayload);
      assert.match(cnText, /Credit note CN-2026-000001/);
      assert.ok(cnText.includes(nl.number));
    }
    const tooMuch = await operator(t, 'POST', `/invoices/${nl.reference}/credit-notes`, {
      reason: 'everything',
      net: nl.net,
    });
    assert.equal(tooMuch.statusCode, 409, tooMuch.body);
    assert.equal(tooMuch.data.code, 'invoice_overcredited');
    const rest = await operator(t, 'POST', `/invoices/${nl.reference}/credit-notes`, { reason: 'cancel the rest' });
    assert.equal(rest.statusCode, 200, rest.body);
    assert.equal(rest.data.invoice.number, 'CN-2026-000002');
    const left = nl.total - 605 + rest.data.invoice.total;
    assert.ok(left >= 0 && left <= 1, `at most a rounding cent is left, not ${left}`);
    const nothing = await operator(t, 'POST', `/invoices/${nl.reference}/credit-notes`, { reason: 'again', net: 2 });
    assert.equal(nothing.statusCode, 409);
    assert.equal((await operator(t, 'GET', '/invoices/Invoice_0123456789abcdefghjkmnpqrs')).statusCode, 404);
  });
});

describe('the monthly invoice run', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());

  it('issues last month’s invoices from the hourly maintenance job, once', async () => {
    t.clock.set('2026-03-20T10:00:00.000Z');
    const order = await createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO1'),
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    await scheduleMaintenance(t.s);
    await t.s.worker.drain();
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoices'))[0].n;
    assert.equal(await count(), 0, 'March is still running');
    t.clock.set('2026-04-01T00:30:00.000Z');
    await scheduleMaintenance(t.s);
    await t.s.worker.drain();
    const [inv] = await t.db.query<{ number: string; period_start: string; lines: any[] }>(
      "SELECT number, period_start::text, lines FROM invoices WHERE kind = 'invoice'",
    );
    assert.equal(inv.number, 'INV-2026-000001');
    assert.equal(inv.period_start, '2026-03-01');
    assert.ok(inv.lines.some((l) => l.orderReference === order));
    t.clock.set('2026-04-01T01:30:00.000Z');
    await scheduleMaintenance(t.s);
    await t.s.worker.drain();
    assert.equal(await count(), 1, 'the next hour issues nothing again');
  });
});

describe('money in the test environment', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('books nothing into the balance and shows what would be charged', async () => {
    const acc = await accountOf(t, 'DEMO1');
    const start = await account(t, acc);
    const order = await createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO1'),
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    assert.equal((await call(t, 'POST', `/v2/test-helpers/orders/${order}/start-production`)).statusCode, 204);
    const view = await account(t, acc);
    assert.equal(view.balance, start.balance);
    assert.equal(view.wouldBeBalance, start.wouldBeBalance - (await amountOf(t, order)));
    const l = await ledger(t, acc);
    assert.equal(l.entries[0].simulated, true);
    assert.equal(l.balance, start.balance);
  });
});
