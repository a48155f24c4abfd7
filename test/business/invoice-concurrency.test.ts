import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';

describe('invoicing a month twice at once', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
  });
  after(() => t.close());

  it('gives one invoice per account and gap-free numbers', async () => {
    t.clock.set('2026-10-05T09:00:00.000Z');
    const org = t.seed.organizations[0].reference;
    const stores: Array<[string, string]> = [
      [store(t, 'DEMO1'), t.key],
      [store(t, 'OTHER1'), t.otherKey],
    ];
    for (let i = 0; i < 3; i++) {
      const acc = await operator(t, 'POST', `/organizations/${org}/accounts`, {
        name: `Shop ${i}`,
        legalEntity: { name: `Shop ${i} B.V.` },
        billingAddress: ADDRESS,
      });
      assert.equal(acc.statusCode, 200, acc.body);
      const st = await operator(t, 'POST', `/organizations/${org}/stores`, {
        name: `Store ${i}`,
        code: `CONC${i}`,
        integration: 'api',
        accountReference: acc.data.account.reference,
      });
      assert.equal(st.statusCode, 200, st.body);
      stores.push([st.data.store.reference, t.key]);
    }
    for (const [storeReference, key] of stores) {
      const order = await createOrder(
        t,
        {
          order: {
            storeReference,
            shippingKind: 'dropship',
            dropshipAddress: ADDRESS,
            orderlines: [{ productReference: products(t).protector, quantity: 1 }],
          },
        },
        key,
      );
      assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    }
    t.clock.set('2026-11-01T03:00:00.000Z');
    // Two operators and the hourly job at the same moment.
    const [a, b, c] = await Promise.all([
      operator(t, 'POST', '/invoices/issue', { month: '2026-10' }),
      operator(t, 'POST', '/invoices/issue', { month: '2026-10' }),
      t.s.billing.issueMonthlyInvoices('2026-10'),
    ]);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    const issued = [...a.data.invoices, ...b.data.invoices, ...c.invoices];
    const accounts = issued.map((i: any) => i.accountReference);
    assert.equal(new Set(accounts).size, accounts.length, 'no account invoiced twice');
    assert.equal(issued.length, stores.length, 'every account once');
    const rows = await t.db.query<{ number: string }>(
      "SELECT number FROM invoices WHERE kind = 'invoice' AND period_start = '2026-10-01' ORDER BY number",
    );
    assert.deepEqual(
      rows.map((r) => r.number),
      stores.map((_, i) => `INV-2026-${String(i + 1).padStart(6, '0')}`),
      'numbers without a gap',
    );
    const [counter] = await t.db.query<{ last_number: number }>(
      "SELECT last_number FROM invoice_counters WHERE series = 'INV-2026'",
    );
    assert.equal(counter.last_number, stores.length, 'no number taken and lost');
  });
});
