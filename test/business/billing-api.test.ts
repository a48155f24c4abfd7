import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';

const accountOf = async (t: TestApp, code: string) =>
  (await t.db.query<{ account_id: string }>('SELECT account_id FROM stores WHERE code = $1', [code]))[0].account_id;

async function produced(t: TestApp, code: string, key: string): Promise<string> {
  const order = await createOrder(
    t,
    {
      order: {
        storeReference: store(t, code),
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    },
    key,
  );
  const res = await operator(t, 'POST', `/orders/${order}/start-production`);
  assert.equal(res.statusCode, 204, res.body);
  return order;
}

describe('an account’s invoices and ledger in the API', () => {
  let t: TestApp;
  let mine: string;
  let theirs: string;
  const invoices: string[] = [];
  let theirInvoice: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    mine = await accountOf(t, 'DEMO1');
    theirs = await accountOf(t, 'OTHER1');
    for (const [month, next] of [
      ['2026-08', '2026-09-01T03:00:00.000Z'],
      ['2026-09', '2026-10-01T03:00:00.000Z'],
      ['2026-10', '2026-11-01T03:00:00.000Z'],
    ]) {
      t.clock.set(`${month}-10T09:00:00.000Z`);
      await produced(t, 'DEMO1', t.key);
      await produced(t, 'OTHER1', t.otherKey);
      t.clock.set(next);
      const res = await operator(t, 'POST', '/invoices/issue', { month });
      assert.equal(res.statusCode, 200, res.body);
      invoices.unshift(res.data.invoices.find((i: any) => i.accountReference === mine).reference);
      theirInvoice = res.data.invoices.find((i: any) => i.accountReference === theirs).reference;
    }
    const paid = await operator(t, 'POST', `/accounts/${mine}/payments`, {
      amount: 500,
      note: 'part',
      invoiceReference: invoices[0],
    });
    assert.equal(paid.statusCode, 200, paid.body);
  });
  after(() => t.close());

  it('lists the account’s invoices newest first with their payment state, page by page with signed cursors', async () => {
    const first = await call(t, 'GET', `/v2/accounts/${mine}/invoices?limit=2`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(
      first.data.invoices.map((i: any) => i.reference),
      invoices.slice(0, 2),
    );
    assert.equal(first.data.invoices[0].payment.status, 'partially_paid');
    assert.equal(first.data.invoices[0].payment.paid, 500);
    assert.equal(first.data.invoices[1].payment.status, 'overdue');
    assert.equal(first.data.simulated, undefined, 'production shows no simulated figures');
    assert.ok(first.data.nextCursor);
    const second = await call(t, 'GET', `/v2/accounts/${mine}/invoices?limit=2&cursor=${first.data.nextCursor}`);
    assert.deepEqual(
      second.data.invoices.map((i: any) => i.reference),
      invoices.slice(2),
    );
    assert.equal(second.data.nextCursor, null);
    // A cursor is bound to its list: not another account's, not edited.
    const foreign = await call(t, 'GET', `/v2/accounts/${mine}/ledger?cursor=${first.data.nextCursor}`);
    assert.equal(foreign.statusCode, 400);
    assert.equal(foreign.data.code, 'invalid_cursor');
  });

  it('shows one invoice as issued, and its PDF', async () => {
    const one = await call(t, 'GET', `/v2/accounts/${mine}/invoices/${invoices[0]}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.data.invoice.reference, invoices[0]);
    assert.match(one.data.invoice.number, /^INV-2026-\d{6}$/);
    assert.equal(one.data.invoice.total, one.data.invoice.net + one.data.invoice.vat);
    const pdf = await call(t, 'GET', `/v2/accounts/${mine}/invoices/${invoices[0]}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.match(String(pdf.headers['content-disposition']), new RegExp(`${one.data.invoice.number}\\.pdf`));
    const ubl = await call(t, 'GET', `/v2/accounts/${mine}/invoices/${invoices[0]}/ubl`);
    assert.equal(ubl.statusCode, 200, ubl.body);
    assert.match(String(ubl.headers['content-type']), /^application\/xml/);
    assert.match(ubl.body, /<cbc:ID>INV-2026-\d{6}<\/cbc:ID>/);
  });

  it('shows the ledger summing to the balance, paged', async () => {
    const page = await call(t, 'GET', `/v2/accounts/${mine}/ledger?limit=3`);
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.data.entries.length, 3);
    assert.equal(page.data.entries[0].kind, 'payment');
    assert.equal(page.data.wouldBeBalance, undefined);
    const all: any[] = [...page.data.entries];
    let cursor = page.data.nextCursor;
    while (cursor) {
      const next = await call(t, 'GET', `/v2/accounts/${mine}/ledger?limit=3&cursor=${cursor}`);
      all.push(...next.data.entries);
      cursor = next.data.nextCursor;
    }
    assert.equal(
      all.reduce((s, e) => s + e.amount, 0),
      page.data.balance,
    );
    assert.equal(new Set(all.map((e) => e.reference)).size, all.length, 'no entry twice across pages');
  });

  it('never lets one organization read another’s invoices, invoice, PDF or ledger: 404 as if absent', async () => {
    for (const url of [
      `/v2/accounts/${mine}/invoices`,
      `/v2/accounts/${mine}/invoices/${invoices[0]}`,
      `/v2/accounts/${mine}/invoices/${invoices[0]}/pdf`,
      `/v2/accounts/${mine}/invoices/${invoices[0]}/ubl`,
      `/v2/accounts/${mine}/ledger`,
      // Its own account in the path does not open another's invoice either.
      `/v2/accounts/${theirs}/invoices/${invoices[0]}`,
      `/v2/accounts/${theirs}/invoices/${invoices[0]}/pdf`,
      `/v2/accounts/${theirs}/invoices/${invoices[0]}/ubl`,
    ]) {
      const res = await call(t, 'GET', url, { key: t.otherKey });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.equal(res.data.code, 'not_found');
      assert.ok(!res.body.includes('INV-'), 'nothing of the invoice leaks');
    }
    // And its own are there.
    const own = await call(t, 'GET', `/v2/accounts/${theirs}/invoices/${theirInvoice}`, { key: t.otherKey });
    assert.equal(own.statusCode, 200, own.body);
    // Another of the organization's accounts does not show this account's invoice.
    const wrongAccount = await call(t, 'GET', `/v2/accounts/${mine}/invoices/${theirInvoice}`);
    assert.equal(wrongAccount.statusCode, 404);
  });

  it('answers 404 for what does not exist and 401 without a key; the routes are read-only', async () => {
    for (const url of [
      `/v2/accounts/Account_0123456789abcdefghjkmnpqrs/invoices`,
      `/v2/accounts/not-a-reference/ledger`,
      `/v2/accounts/${mine}/invoices/Invoice_0123456789abcdefghjkmnpqrs`,
      `/v2/accounts/${mine}/invoices/Invoice_0123456789abcdefghjkmnpqrs/pdf`,
      `/v2/accounts/${mine}/invoices/Invoice_0123456789abcdefghjkmnpqrs/ubl`,
    ]) {
      const res = await call(t, 'GET', url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    assert.equal((await call(t, 'GET', `/v2/accounts/${mine}/ledger`, { key: null })).statusCode, 401);
    const write = await call(t, 'POST', `/v2/accounts/${mine}/invoices`, { body: {} });
    assert.ok([404, 405].includes(write.statusCode), write.body);
  });
});

describe('an account’s invoices and ledger in the test environment', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('shows the simulated entries and what they would add up to, labelled, and invoices nothing', async () => {
    const acc = await accountOf(t, 'DEMO1');
    t.clock.set('2026-11-10T09:00:00.000Z');
    const order = await createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO1'),
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    const started = await call(t, 'POST', `/v2/test-helpers/orders/${order}/start-production`);
    assert.equal(started.statusCode, 204, started.body);
    const ledger = await call(t, 'GET', `/v2/accounts/${acc}/ledger`);
    assert.equal(ledger.statusCode, 200, ledger.body);
    const charge = ledger.data.entries.find((e: any) => e.kind === 'charge');
    assert.equal(charge.simulated, true);
    assert.equal(ledger.data.wouldBeBalance, ledger.data.balance + charge.amount);
    const list = await call(t, 'GET', `/v2/accounts/${acc}/invoices`);
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.data.invoices, []);
    assert.match(list.data.simulated.note, /Test environment: nothing is invoiced/);
    assert.deepEqual(list.data.simulated.months, [{ month: '2026-11', net: -charge.amount, entries: 1 }]);
  });
});
