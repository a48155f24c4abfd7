import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { paymentOf } from '../../src/modules/billing/payments.ts';

const accountOf = async (t: TestApp, code: string) =>
  (await t.db.query<{ account_id: string }>('SELECT account_id FROM stores WHERE code = $1', [code]))[0].account_id;

/** An order of the store put into production. */
async function produced(t: TestApp, code = 'DEMO1', key = t.key): Promise<string> {
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
const issue = async (t: TestApp, month: string) => {
  const res = await operator(t, 'POST', '/invoices/issue', { month });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.invoices as any[];
};
const invoice = async (t: TestApp, ref: string) => {
  const res = await operator(t, 'GET', `/invoices/${ref}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.data.invoice;
};
const pay = async (t: TestApp, acc: string, amount: number, invoiceReference?: string) => {
  const res = await operator(t, 'POST', `/accounts/${acc}/payments`, {
    amount,
    note: 'bank transfer',
    ...(invoiceReference ? { invoiceReference } : {}),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.payment;
};

describe('the payment state of an invoice', () => {
  const due = new Date('2026-11-15T00:00:00Z');
  const before = new Date('2026-11-10T00:00:00Z');
  const afterDue = new Date('2026-11-16T00:00:00Z');
  const inv = { kind: 'invoice', total_cents: 1210, due_at: due };
  const cases: Array<[string, number, number, Date, string, number]> = [
    ['nothing paid, before the due date', 0, 0, before, 'open', 1210],
    ['some paid, before the due date', 500, 0, before, 'partially_paid', 710],
    ['all paid', 1210, 0, afterDue, 'paid', 0],
    ['nothing paid, after the due date', 0, 0, afterDue, 'overdue', 1210],
    ['some paid, after the due date', 500, 0, afterDue, 'overdue', 710],
    ['credited in full by credit notes', 0, -1210, afterDue, 'paid', 0],
    ['partly credited, the rest paid', 610, -600, before, 'paid', 0],
  ];
  for (const [name, paid, credited, now, status, outstanding] of cases)
    it(`${name}: ${status}`, () => {
      const p = paymentOf(inv, { paid_cents: paid, credited_cents: credited }, now)!;
      assert.equal(p.status, status);
      assert.equal(p.outstanding, outstanding);
    });
  it('a credit note has no payment state', () => {
    assert.equal(paymentOf({ ...inv, kind: 'credit_note', total_cents: -1210 }, undefined, before), null);
  });
});

describe('payments recorded by an operator are put against invoices', () => {
  let t: TestApp;
  let acc: string;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    acc = await accountOf(t, 'DEMO1');
  });
  after(() => t.close());

  it('open, partially paid, overdue, paid by the account’s payment terms; the named invoice first, then the oldest due', async () => {
    t.clock.set('2026-09-10T09:00:00.000Z');
    await produced(t);
    t.clock.set('2026-10-01T03:00:00.000Z');
    const [sep] = (await issue(t, '2026-09')).filter((i) => i.accountReference === acc);
    t.clock.set('2026-10-10T09:00:00.000Z');
    await produced(t);
    t.clock.set('2026-11-01T03:00:00.000Z');
    const [oct] = (await issue(t, '2026-10')).filter((i) => i.accountReference === acc);

    // Due in the account's 14 days from issue; September's is overdue by now, October's is open.
    assert.equal(oct.due, '2026-11-15T03:00:00.000Z');
    assert.equal((await invoice(t, sep.reference)).payment.status, 'overdue');
    const fresh = await invoice(t, oct.reference);
    assert.deepEqual(fresh.payment, { status: 'open', paid: 0, credited: 0, outstanding: oct.total });

    // A part of October's, named: October first, although September is older.
    const part = await pay(t, acc, 300, oct.reference);
    assert.deepEqual(part.allocations, [{ invoiceReference: oct.reference, number: oct.number, amount: 300 }]);
    assert.equal(part.unallocated, 0);
    assert.equal((await invoice(t, oct.reference)).payment.status, 'partially_paid');
    assert.equal((await invoice(t, oct.reference)).payment.outstanding, oct.total - 300);

    // Unnamed: the oldest due first, then the next; the rest stays as credit.
    const rest = await pay(t, acc, sep.total + oct.total - 300 + 1000);
    assert.deepEqual(
      rest.allocations.map((a: any) => [a.number, a.amount]),
      [
        [sep.number, sep.total],
        [oct.number, oct.total - 300],
      ],
    );
    assert.equal(rest.unallocated, 1000);
    assert.equal((await invoice(t, sep.reference)).payment.status, 'paid');
    assert.equal((await invoice(t, oct.reference)).payment.status, 'paid');

    // The credit pays the next invoice as it is issued.
    t.clock.set('2026-11-10T09:00:00.000Z');
    await produced(t);
    t.clock.set('2026-12-01T03:00:00.000Z');
    const [nov] = (await issue(t, '2026-11')).filter((i) => i.accountReference === acc);
    const novView = await invoice(t, nov.reference);
    assert.equal(novView.payment.paid, Math.min(1000, nov.total));
    assert.equal(novView.payment.status, nov.total > 1000 ? 'partially_paid' : 'paid');

    // A credit note lowers what is left to pay.
    const cn = await operator(t, 'POST', `/invoices/${nov.reference}/credit-notes`, {
      reason: 'price error',
      net: 100,
    });
    assert.equal(cn.statusCode, 200, cn.body);
    const credited = await invoice(t, nov.reference);
    assert.equal(credited.payment.credited, 121);
    assert.equal(credited.payment.outstanding, Math.max(0, nov.total - 121 - 1000));
    assert.equal(cn.data.invoice.kind, 'credit_note');
    assert.equal((await invoice(t, cn.data.invoice.reference)).payment, null);

    // The list shows the same state.
    const list = await operator(t, 'GET', `/accounts/${acc}/invoices?limit=10`);
    assert.equal(list.data.invoices.find((i: any) => i.reference === sep.reference).payment.status, 'paid');
  });

  it('refuses a payment naming an invoice of another account or no invoice, and books nothing', async () => {
    const other = await accountOf(t, 'OTHER1');
    await produced(t, 'OTHER1', t.otherKey);
    t.clock.set('2027-01-01T03:00:00.000Z');
    const [dec] = (await issue(t, '2026-12')).filter((i) => i.accountReference === other);
    const count = async () =>
      (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE kind = 'payment'"))[0].n;
    const before = await count();
    const foreign = await operator(t, 'POST', `/accounts/${acc}/payments`, {
      amount: 100,
      note: 'x',
      invoiceReference: dec.reference,
    });
    assert.equal(foreign.statusCode, 400, foreign.body);
    assert.match(foreign.data.message, /not an invoice of account/);
    const missing = await operator(t, 'POST', `/accounts/${acc}/payments`, {
      amount: 100,
      note: 'x',
      invoiceReference: 'Invoice_0123456789abcdefghjkmnpqrs',
    });
    assert.equal(missing.statusCode, 404, missing.body);
    assert.equal(await count(), before, 'nothing booked');
  });

  it('settles the invoices of a prepaid account from its balance as they are issued', async () => {
    const org = t.seed.organizations[0].reference;
    const created = await operator(t, 'POST', `/organizations/${org}/accounts`, {
      name: 'Prepaid shop',
      prepaid: true,
      balance: 50_000,
      legalEntity: { name: 'Prepaid Shop B.V.' },
      billingAddress: ADDRESS,
    });
    assert.equal(created.statusCode, 200, created.body);
    const prepaid = created.data.account.reference;
    const st = await operator(t, 'POST', `/organizations/${org}/stores`, {
      name: 'Prepaid store',
      code: 'PREPAID2',
      integration: 'api',
      accountReference: prepaid,
    });
    assert.equal(st.statusCode, 200, st.body);
    t.clock.set('2027-01-10T09:00:00.000Z');
    const order = await createOrder(t, {
      order: {
        storeReference: st.data.store.reference,
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    t.clock.set('2027-02-01T03:00:00.000Z');
    const [jan] = (await issue(t, '2027-01')).filter((i) => i.accountReference === prepaid);
    const view = await invoice(t, jan.reference);
    assert.deepEqual(view.payment, { status: 'paid', paid: jan.total, credited: 0, outstanding: 0 });

    // An order the balance does not cover is held; the top-up releases it into production.
    const empty = await operator(t, 'POST', `/organizations/${org}/accounts`, {
      name: 'Empty prepaid shop',
      prepaid: true,
      balance: 0,
      legalEntity: { name: 'Empty Prepaid B.V.' },
      billingAddress: ADDRESS,
    });
    const emptyAcc = empty.data.account.reference;
    const st2 = await operator(t, 'POST', `/organizations/${org}/stores`, {
      name: 'Empty prepaid store',
      code: 'PREPAID3',
      integration: 'api',
      accountReference: emptyAcc,
    });
    const big = await createOrder(t, {
      order: {
        storeReference: st2.data.store.reference,
        shippingKind: 'dropship',
        dropshipAddress: ADDRESS,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    const refused = await operator(t, 'POST', `/orders/${big}/start-production`);
    assert.equal(refused.statusCode, 409, refused.body);
    const topUp = await pay(t, emptyAcc, 50_000);
    assert.deepEqual(topUp.allocations, [], 'a top-up pays orders, not invoices');
    const [o] = await t.db.query<{ status: string }>('SELECT status FROM orders WHERE id = $1', [big]);
    assert.equal(o.status, 'in_production');
  });
});
