import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { viesChecker } from '../../src/modules/billing/vat-checker.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { type ViesStandIn, startViesStandIn } from '../support/vies-standin.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { type Agent, OPERATOR_USER, signedIn, textOf } from '../dashboard/helpers.ts';

const DE_BILLING = {
  'billingAddress.company': 'Someone GmbH',
  'billingAddress.streetname': 'Hohe Straße',
  'billingAddress.housenumber': '1',
  'billingAddress.zipcode': '50667',
  'billingAddress.city': 'Köln',
  'billingAddress.countryCode': 'DE',
};
const NL_BILLING = {
  'billingAddress.company': 'Demo Cases B.V.',
  'billingAddress.streetname': 'Keizersgracht',
  'billingAddress.housenumber': '100',
  'billingAddress.zipcode': '1015 AA',
  'billingAddress.city': 'Amsterdam',
  'billingAddress.countryCode': 'NL',
};

/** Goods to Germany: an intra-Community supply when the buyer's number is valid. */
const TO_GERMANY = {
  ...ADDRESS,
  streetname: 'Hohe Straße',
  housenumber: '1',
  zipcode: '50667',
  city: 'Köln',
  countryCode: 'DE',
};

describe('tax details: set by an operator, or requested by a partner and approved', () => {
  let t: TestApp;
  let vies: ViesStandIn;
  let partner: Agent;
  let acc: string;
  before(async () => {
    vies = await startViesStandIn();
    vies.registered.set('DE136695976', { name: 'Someone GmbH', address: 'Hohe Straße 1, 50667 Köln' });
    vies.down.add('FR');
    t = await createTestApp({ env: { APP_ENV: 'production', VIES_URL: vies.url } });
    t.clock.set('2026-10-05T09:00:00.000Z');
    partner = await signedIn(t);
    acc = t.seed.organizations[0].accounts[0].reference;
  });
  after(async () => {
    await t.close();
    await vies.close();
  });

  const account = async () => (await call(t, 'GET', `/v2/accounts/${acc}`)).data.account;
  const details = async (ref = acc) => (await operator(t, 'GET', `/accounts/${ref}/tax-details`)).data.taxDetails;
  const save = (form: Record<string, string>) =>
    partner.submit(
      `/dashboard/accounts/${acc}`,
      {
        name: 'Demo Cases Benelux',
        legalEntityName: 'Demo Cases B.V.',
        vatNumber: 'NL123456782B01',
        ...NL_BILLING,
        ...form,
      },
      '/dashboard/accounts',
    );
  /** Charges an order shipped to `to` in the clock's month and issues that month: its invoice. */
  async function invoiceOfMonth(month: string, next: string, to: Record<string, string> = ADDRESS) {
    const order = await createOrder(t, {
      order: {
        storeReference: store(t, 'DEMO1'),
        shippingKind: 'dropship',
        dropshipAddress: to,
        orderlines: [{ productReference: products(t).protector, quantity: 1 }],
      },
    });
    assert.equal((await operator(t, 'POST', `/orders/${order}/start-production`)).statusCode, 204);
    t.clock.set(`${next}-01T03:00:00.000Z`);
    const res = await operator(t, 'POST', '/invoices/issue', { month });
    assert.equal(res.statusCode, 200, res.body);
    partner = await signedIn(t); // a month later: a new session
    return res.data.invoices.find((i: any) => i.accountReference === acc);
  }

  it('keeps the demo accounts’ check: valid, by the seed, shown with the VAT number', async () => {
    const d = await details();
    assert.deepEqual(d.legalEntity, { name: 'Demo Cases B.V.', vatNumber: 'NL123456782B01' });
    assert.equal(d.vatCheck.status, 'valid');
    assert.equal(d.vatCheck.checkedBy, 'demo seed');
    assert.match(
      d.vatCheck.detail,
      /form and check digits valid; no live VIES check is configured.*confirmed by demo seed/,
    );
    const other = await details(t.seed.organizations[1].accounts[0].reference);
    assert.equal(other.legalEntity.vatNumber, 'DE123456788');
  });

  it('a partner cannot get 0 % reverse charge by typing a VAT number: the change waits, the invoice stays Dutch', async () => {
    const res = await save({ legalEntityName: 'Someone GmbH', vatNumber: 'de 136 695 976', ...DE_BILLING });
    assert.equal(res.statusCode, 303, res.body);
    const a = await account();
    assert.deepEqual(a.legalEntity, { name: 'Demo Cases B.V.', vatNumber: 'NL123456782B01' }, 'unchanged');
    assert.equal(a.billingAddress.countryCode, 'NL');
    assert.equal(a.billingAddress.city, 'Amsterdam', 'a new country’s address waits with it');
    const page = textOf((await partner.get('/dashboard/accounts')).body);
    assert.match(
      page,
      /pending Change requested .* legal entity Someone GmbH, VAT number DE136695976, billing country DE/,
    );
    assert.match(page, /waits for our approval/);

    const inv = await invoiceOfMonth('2026-10', '2026-11');
    assert.equal(inv.vatTreatment, 'domestic');
    assert.equal(inv.vatRatePercent, 21);
    assert.equal(inv.vat, Math.round(inv.net * 0.21));
  });

  it('refuses a malformed number, a wrong check digit, or another state’s number, and writes nothing', async () => {
    const before = await operator(t, 'GET', '/tax-requests');
    for (const [vatNumber, message] of [
      ['DE123456789B01', /does not have the form of a DE VAT number/],
      ['DE136695977', /fails the check digits/],
      ['x', /does not start with a member state.{1,6}s prefix/],
      ['DE136695976', /is a DE number, the billing address is in NL/],
    ] as const) {
      const res = await save({ name: 'Renamed', vatNumber });
      assert.equal(res.statusCode, 400, vatNumber);
      assert.match(textOf(res.body), message);
    }
    assert.equal((await account()).name, 'Demo Cases Benelux', 'nothing saved');
    assert.deepEqual((await operator(t, 'GET', '/tax-requests')).data, before.data);
  });

  it('an operator approves the request in the console: checked again, who and when kept, shown to both', async () => {
    const op = await signedIn(t, OPERATOR_USER, 'console');
    const queue = textOf((await op.get('/console/billing')).body);
    assert.match(queue, /Tax details waiting for approval .* Someone GmbH DE136695976/);
    const page = await op.get(`/console/billing?account=${acc}`);
    const ref = /\/console\/billing\/tax-requests\/(Taxrequest_[a-z0-9]+)\/approve/.exec(page.body)?.[1];
    assert.ok(ref, 'an approve form');
    const res = await op.submit(
      `/console/billing/tax-requests/${ref}/approve?account=${acc}`,
      { note: 'checked the register' },
      `/console/billing?account=${acc}`,
    );
    assert.equal(res.statusCode, 303, res.body);
    const d = await details();
    assert.deepEqual(d.legalEntity, { name: 'Someone GmbH', vatNumber: 'DE136695976' });
    assert.equal(d.billingCountry, 'DE');
    assert.equal(d.vatCheck.status, 'valid');
    assert.equal(d.vatCheck.checkedBy, OPERATOR_USER.email);
    assert.match(d.vatCheck.detail, /VIES: registered to Someone GmbH \(consultation WAPIAAAAZ8Cq1x2b\)/);
    assert.equal(d.pending, null);
    assert.match(textOf((await op.get(`/console/billing?account=${acc}`)).body), /VAT check valid .* by operator@/);
    assert.match(textOf((await partner.get('/dashboard/accounts')).body), /VAT check valid/);
    const again = await operator(t, 'POST', `/tax-requests/${ref}/approve`, {});
    assert.equal(again.statusCode, 409);
    assert.equal(again.data.code, 'tax_request_decided');

    const inv = await invoiceOfMonth('2026-11', '2026-12', TO_GERMANY);
    assert.equal(inv.vatTreatment, 'reverse_charge', 'approved and valid: reverse-charged');
    assert.equal(inv.vat, 0);
    assert.deepEqual(vies.rejected, [], 'every request had VIES’s form');
    assert.ok(vies.requests.every((r) => r.requesterMemberStateCode === 'NL' && r.requesterNumber === '859999993B01'));
  });

  it('a rejected request leaves the account as it was and tells the partner why', async () => {
    await save({ legalEntityName: 'Someone Else GmbH', vatNumber: 'DE136695976', ...DE_BILLING });
    const [pending] = (await operator(t, 'GET', '/tax-requests')).data.requests;
    assert.equal(pending.legalEntity.name, 'Someone Else GmbH');
    const res = await operator(t, 'POST', `/tax-requests/${pending.reference}/reject`, {
      note: 'the register names Someone GmbH',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await details()).legalEntity.name, 'Someone GmbH');
    assert.match(
      textOf((await partner.get('/dashboard/accounts')).body),
      /not approved: the register names Someone GmbH/,
    );
  });

  it('an operator sets tax details directly: the register’s no is kept as invalid and charged Dutch VAT', async () => {
    const set = (vatNumber: string, countryCode: string) =>
      operator(t, 'PUT', `/accounts/${acc}/tax-details`, {
        legalEntity: { name: 'Someone GmbH', vatNumber },
        billingAddress: { ...ADDRESS, countryCode },
      });
    const unknown = await set('DE123456788', 'DE');
    assert.equal(unknown.statusCode, 200, unknown.body);
    assert.equal(unknown.data.taxDetails.vatCheck.status, 'invalid');
    assert.equal(unknown.data.taxDetails.vatCheck.checkedBy, 'operator API');
    const down = await set('FR40303265045', 'FR');
    assert.equal(down.data.taxDetails.vatCheck.status, 'valid', 'the register down: the operator confirms');
    assert.match(down.data.taxDetails.vatCheck.detail, /MS_UNAVAILABLE.*confirmed by operator API/);
    const bad = await set('FR4030326504', 'FR');
    assert.equal(bad.statusCode, 400);
    assert.equal((await details()).legalEntity.vatNumber, 'FR40303265045', 'nothing written');
    await set('DE123456788', 'DE');
    const inv = await invoiceOfMonth('2026-12', '2027-01', TO_GERMANY);
    assert.equal(inv.vatTreatment, 'domestic', 'a number the register does not know is no reverse charge');
  });
});

describe('the VIES adapter', () => {
  it('asks VIES’s REST endpoint and reads its answers; no answer is never "invalid"', async () => {
    const vies = await startViesStandIn();
    vies.registered.set('ATU13585627', { name: 'Firma GmbH', address: 'Wien' });
    vies.down.add('IT');
    try {
      const c = viesChecker({ url: vies.url });
      assert.deepEqual(await c.check('AT', 'U13585627'), {
        status: 'valid',
        name: 'Firma GmbH',
        address: 'Wien',
        requestIdentifier: null,
      });
      assert.equal((await c.check('AT', 'U13585626')).status, 'invalid');
      const down = await c.check('IT', '00743110157');
      assert.equal(down.status, 'unavailable');
      assert.match(down.status === 'unavailable' ? down.reason : '', /MS_UNAVAILABLE/);
      assert.equal((await viesChecker({ url: `${vies.url}x` }).check('AT', 'U1')).status, 'unavailable');
      const gone = await viesChecker({ url: 'http://127.0.0.1:9/check-vat-number', timeoutMs: 2000 }).check('AT', 'U1');
      assert.equal(gone.status, 'unavailable');
      assert.deepEqual(vies.rejected, ['path'], 'only the wrong path was refused');
    } finally {
      await vies.close();
    }
  });
});
