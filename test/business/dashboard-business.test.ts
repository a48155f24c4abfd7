import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { Agent, OPERATOR_USER, OTHER_PARTNER, signedIn, textOf } from '../dashboard/helpers.ts';
import { pdfText, popplerMissing } from '../support/pdf-tools.ts';

const protectorOrder = (t: TestApp) => ({
  order: {
    storeReference: store(t, 'DEMO1'),
    shippingKind: 'dropship',
    dropshipAddress: ADDRESS,
    orderlines: [{ productReference: products(t).protector, quantity: 1 }],
  },
});

describe('dashboard billing page (production)', () => {
  let t: TestApp;
  let partner: Agent;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
  });
  after(() => t.close());

  it('shows the balance, the ledger and the invoices with their PDFs, only to their organization', async () => {
    const order = await createOrder(t, protectorOrder(t));
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const issued = await operator(t, 'POST', '/invoices/issue', { month: '2026-10' });
    const invoice = issued.data.invoices.find((i: any) => i.lines.some((l: any) => l.orderReference === order));
    assert.ok(invoice, issued.body);
    // (signed in after the clock moved: a session ages with it)
    partner = await signedIn(t);

    const res = await partner.request('GET', '/dashboard/billing');
    assert.equal(res.statusCode, 200);
    const text = textOf(res.body);
    assert.match(text, /Balance/);
    assert.match(text, /Products and shipping/);
    assert.ok(text.includes(invoice.number));
    assert.ok(!text.includes('would be charged'), 'production shows no test marking');
    const pdf = await partner.request('GET', `/dashboard/billing/invoices/${invoice.reference}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    if (!popplerMissing) assert.ok(pdfText(pdf.rawPayload).includes(invoice.number));

    const other = await signedIn(t, OTHER_PARTNER);
    const foreign = await other.request('GET', `/dashboard/billing/invoices/${invoice.reference}/pdf`);
    assert.equal(foreign.statusCode, 404);
    const anonymous = await new Agent(t).request('GET', `/dashboard/billing/invoices/${invoice.reference}/pdf`);
    assert.notEqual(anonymous.statusCode, 200);
  });
});

describe('console billing (production)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    t.clock.set('2026-10-05T09:00:00.000Z');
  });
  after(() => t.close());

  it('records payments, issues the month and corrects an invoice with a credit note', async () => {
    const order = await createOrder(t, protectorOrder(t));
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const [{ account_id: acc }] = await t.db.query<{ account_id: string }>(
      "SELECT account_id FROM stores WHERE code = 'DEMO1'",
    );
    const url = `/console/billing?account=${acc}`;
    const bad = await op.submit('/console/billing/issue', { month: 'October' }, '/console/billing');
    assert.equal(bad.statusCode, 400);
    const issued = await op.submit('/console/billing/issue', { month: '2026-10' }, '/console/billing');
    assert.equal(issued.statusCode, 303, issued.body);
    const paid = await op.submit(`/console/billing/payments?account=${acc}`, { amount: '2500', note: 'bank 99' }, url);
    assert.equal(paid.statusCode, 303, paid.body);
    let text = textOf((await op.request('GET', url)).body);
    assert.match(text, /bank 99/);
    const [{ id, number }] = await t.db.query<{ id: string; number: string }>(
      'SELECT id, number FROM invoices WHERE account_id = $1',
      [acc],
    );
    assert.ok(text.includes(number));
    const pdf = await op.request('GET', `/console/billing/invoices/${id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    const cn = await op.submit(
      `/console/billing/invoices/${id}/credit-note?account=${acc}`,
      { net: '100', reason: 'goodwill' },
      url,
    );
    assert.equal(cn.statusCode, 303, cn.body);
    text = textOf((await op.request('GET', url)).body);
    assert.match(text, /CN-2026-000001/);
    const missing = await op.request('GET', '/console/billing?account=Account_0123456789abcdefghjkmnpqrs');
    assert.match(textOf(missing.body), /No account/);
  });
});

describe('dashboard billing page and console stock (test environment)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('marks what would be charged in the test environment', async () => {
    const order = await createOrder(t, protectorOrder(t));
    const partner = await signedIn(t);
    const started = await partner.submit(
      `/dashboard/orders/${order}/start-production`,
      {},
      `/dashboard/orders/${order}`,
    );
    assert.ok(started.statusCode < 400, started.body);
    const text = textOf((await partner.request('GET', '/dashboard/billing')).body);
    assert.match(text, /would be charged \(test\)/);
    assert.match(text, /Would be charged/);
    assert.match(text, /test environment issues no invoices/);
  });

  it('lets operators receive and correct stock with a reason and shows the ledger', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const [{ item_id }] = await t.db.query<{ item_id: string }>('SELECT item_id FROM products WHERE id = $1', [
      products(t).protector,
    ]);
    const shown = await op.request('GET', `/console/stock?item=${item_id}`);
    assert.equal(shown.statusCode, 200);
    const received = await op.submit(
      `/console/stock/${item_id}/receive`,
      { quantity: '7', reason: 'pallet 12' },
      `/console/stock?item=${item_id}`,
    );
    assert.ok(received.statusCode < 400, received.body);
    const noReason = await op.submit(
      `/console/stock/${item_id}/correct`,
      { physicalDelta: '-1', reason: '' },
      `/console/stock?item=${item_id}`,
    );
    assert.equal(noReason.statusCode, 400);
    const corrected = await op.submit(
      `/console/stock/${item_id}/correct`,
      { physicalDelta: '-1', logicalDelta: '-1', reason: 'dropped one' },
      `/console/stock?item=${item_id}`,
    );
    assert.ok(corrected.statusCode < 400, corrected.body);
    const text = textOf((await op.request('GET', `/console/stock?item=${item_id}`)).body);
    assert.match(text, /pallet 12/);
    assert.match(text, /dropped one/);
    const missing = await op.request('GET', '/console/stock?item=NO-SUCH-SKU');
    assert.match(textOf(missing.body), /No item NO-SUCH-SKU/);
  });
});
