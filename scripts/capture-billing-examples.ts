/**
 * The OpenAPI examples of an account's invoices and ledger, captured from a production-environment
 * test app (the test environment invoices nothing): an order put into production, the month
 * invoiced, a part paid. Merged into src/openapi/examples.json (capture-openapi-examples.ts merges
 * them too when it records every operation).
 *
 *   npx tsx scripts/capture-billing-examples.ts
 */
import { ManualClock } from '../src/platform/clock.ts';
import { EXAMPLES_FILE, type OperationExamples } from '../src/openapi/examples.ts';
import { OPERATOR_TOKEN, call, createTestApp } from '../test/support/app.ts';
import { ADDRESS } from '../examples/integration.ts';
import { MISSING, REQUEST_ID, writeExamples } from './openapi-examples/recorder.ts';

/** Long lists make a reference page unreadable: two items show the shape. */
const shorten = (v: any): any =>
  Array.isArray(v)
    ? v.slice(0, 2).map(shorten)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x)]))
      : v;

export async function captureBilling(): Promise<Record<string, OperationExamples>> {
  const clock = new ManualClock(new Date('2026-02-10T09:30:00Z'));
  const t = await createTestApp({ clock, env: { APP_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' } });
  const out: Record<string, OperationExamples> = {};
  const send = async (id: string, url: string) => {
    const res = await call(t, 'GET', url, { headers: { 'x-request-id': REQUEST_ID } });
    const entry = (out[id] ??= { responses: {} });
    if (String(res.headers['content-type']).startsWith('application/json'))
      entry.responses[String(res.statusCode)] ??= shorten(res.data);
    return res;
  };
  const operator = (method: 'POST', url: string, body: unknown) =>
    call(t, method, `/operator${url}`, { key: null, body, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  try {
    const org = t.seed.organizations[0];
    const store = org.stores.find((s) => s.code === 'DEMO1')!.reference;
    const product = org.products!.find((p) => p.name === 'iPhone 15 Tempered Glass Screen Protector')!.reference;
    const made = await call(t, 'POST', '/v2/orders', {
      body: {
        order: {
          storeReference: store,
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: product, quantity: 2 }],
        },
      },
    });
    const order = made.data.order.reference;
    await operator('POST', `/orders/${order}/start-production`, undefined);
    clock.set('2026-03-01T02:00:00Z');
    const issued = await operator('POST', '/invoices/issue', { month: '2026-02' });
    const invoice = issued.data.invoices[0];
    const account = invoice.accountReference;
    await operator('POST', `/accounts/${account}/payments`, {
      amount: 1000,
      note: 'bank 2026-03-04',
      invoiceReference: invoice.reference,
    });
    clock.set('2026-03-05T10:00:00Z');
    const base = `/v2/accounts/${account}`;
    await send('listInvoices', `${base}/invoices?limit=2`);
    await send('listInvoices', `${base}/invoices?cursor=not-a-cursor`);
    await send('getInvoice', `${base}/invoices/${invoice.reference}`);
    await send('getInvoice', `${base}/invoices/${MISSING('Invoice')}`);
    await send('getInvoicePdf', `${base}/invoices/${MISSING('Invoice')}/pdf`);
    await send('getInvoiceUbl', `${base}/invoices/${MISSING('Invoice')}/ubl`);
    await send('listLedgerEntries', `${base}/ledger?limit=2`);
    await send('listLedgerEntries', `/v2/accounts/${MISSING('Account')}/ledger`);
    return out;
  } finally {
    await t.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeExamples(await captureBilling(), true);
  console.log(`Billing examples merged into ${EXAMPLES_FILE}`);
}
