import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, OPERATOR_TOKEN, call, createTestApp, operator } from '../support/app.ts';
import { ADDRESS, createOrder, products, store } from '../orders/helpers.ts';
import { parseCamt053 } from '../../src/modules/billing/camt053.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { ISO_EXAMPLE, dutchStatement } from './bank-statements.ts';

const upload = (t: TestApp, xml: string | Buffer, type = 'application/xml') =>
  call(t, 'POST', '/operator/bank-statements', {
    key: null,
    payload: xml,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': type },
  });
/** Writes `[#233]`, `[#xE9]`, `[amp]` in a generated statement as the references `&#233;`, `&#xE9;`, `&amp;`. */
const withReferences = (xml: string) => xml.replace(/\[(#x?[0-9A-Fa-f]+|amp)\]/g, '&$1;');
const refusal = (xml: string) => {
  try {
    parseCamt053(xml);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'bank_statement_invalid');
    return err.message;
  }
  assert.fail('accepted');
};

describe('reading camt.053', () => {
  it('reads the ISO 20022 business example: entries, amounts to the cent, references, debtor', () => {
    const doc = parseCamt053(ISO_EXAMPLE);
    assert.equal(doc.version, 'camt.053.001.02');
    assert.equal(doc.messageId, 'AAAASESS-FP-STAT001');
    const [s] = doc.statements;
    assert.equal(s.statementId, 'AAAASESS-FP-STAT001');
    assert.equal(s.bankAccount, '50000000054910000003');
    assert.deepEqual(
      s.entries.map((e) => [e.entryReference, e.amountCents, e.currency, e.credit, e.booked, e.bookingDate]),
      [
        ['AAAASESS-FP-CN_98765/01', 10567850, 'SEK', true, true, '2010-10-18'],
        ['AAAASESS-FP-ACCR-01', 20000000, 'SEK', false, true, '2010-10-18'],
        ['AAAASESS-FP-CONF-FX', 3000000, 'SEK', true, true, '2010-10-18'],
      ],
    );
    assert.equal(s.entries[0].debtorName, 'MUELLER');
    assert.equal(s.entries[0].remittance, 'MUELL/FINP/RA12345');
  });

  it('reads version 001.08 (status as a code, the debtor under Pty) like 001.02', () => {
    const xml = dutchStatement(
      'V8',
      [{ ref: 'R1', cents: 1210, remittance: 'INV-2026-000001 thanks', debtor: 'Shop & Co' }],
      {
        version: '08',
      },
    );
    const [e] = parseCamt053(xml).statements[0].entries;
    assert.deepEqual(
      [e.entryReference, e.amountCents, e.booked, e.debtorName, e.debtorAccount, e.remittance],
      ['R1', 1210, true, 'Shop & Co', 'NL02ABNA0123456789', 'INV-2026-000001 thanks'],
    );
  });

  it('splits a batch booked as one entry into its transactions when their amounts add up', () => {
    const withParts = (first: string) =>
      ISO_EXAMPLE.replace(
        '<NtryDtls>\n\t\t\t\t\t<TxDtls>',
        `<NtryDtls><TxDtls><AmtDtls><TxAmt><Amt Ccy="SEK">${first}</Amt></TxAmt></AmtDtls><RmtInf><Ustrd>first</Ustrd></RmtInf></TxDtls><TxDtls>`,
      ).replace('</Refs>', '</Refs><AmtDtls><TxAmt><Amt Ccy="SEK">100000</Amt></TxAmt></AmtDtls>');
    const credits = parseCamt053(withParts('5678.50')).statements[0].entries.filter((e) => e.credit);
    assert.deepEqual(
      credits.map((e) => [e.entryReference, e.amountCents, e.remittance]),
      [
        ['AAAASESS-FP-CN_98765/01#1', 567850, 'first'],
        ['AAAASESS-FP-CN_98765/01#2', 10000000, 'MUELL/FINP/RA12345'],
        ['AAAASESS-FP-CONF-FX', 3000000, 'AAAASS1085FINPSS'],
      ],
    );
    // Parts that do not add up to the entry: the entry stays one payment.
    const whole = parseCamt053(withParts('5000')).statements[0].entries[0];
    assert.deepEqual([whole.entryReference, whole.amountCents], ['AAAASESS-FP-CN_98765/01', 10567850]);
  });

  it('decodes the predefined entities and character references in text and attributes', () => {
    const xml = withReferences(
      dutchStatement('REFS', [
        {
          ref: 'R[#x2F]1',
          cents: 100,
          debtor: 'Caf[#233] M[#xFC]ller [amp] Co',
          remittance: 'Caf[#xE9] [amp]#65; [#38]lt;',
        },
      ]),
    ).replace('<Amt Ccy="EUR">1.00', '<Amt Ccy="&#69;UR">1.00');
    const [e] = parseCamt053(xml).statements[0].entries;
    assert.deepEqual(
      [e.entryReference, e.debtorName, e.remittance, e.currency],
      ['R/1', 'Café Müller & Co', 'Café &#65; &lt;', 'EUR'],
    );
  });

  it('refuses references to characters XML does not allow and entities no statement defines', () => {
    const named = (text: string) =>
      withReferences(dutchStatement('BAD', [{ ref: 'R1', cents: 100, remittance: text }]));
    for (const ref of ['#0', '#x0', '#1', '#xD800', '#xDFFF', '#xFFFE', '#x110000', '#99999999999']) {
      assert.match(refusal(named(`a [${ref}] b`)), new RegExp(`&${ref};, which names a character XML does not allow`));
    }
    assert.match(refusal(named('a').replace('<Ustrd>a', '<Ustrd>&nbsp;')), /undefined entity &nbsp;/);
  });

  it('refuses what is not a camt.053 statement, naming the problem', () => {
    assert.match(refusal(''), /empty/);
    assert.match(refusal('{"statement": 1}'), /not well-formed XML|not an ISO 20022/);
    assert.match(refusal('<Document><BkToCstmrStmt>'), /not well-formed XML/);
    assert.match(refusal('<a>b</a>'), /not an ISO 20022 camt\.053/);
    assert.match(
      refusal(ISO_EXAMPLE.replace('camt.053.001.02', 'camt.054.001.02')),
      /ISO 20022 camt\.054, not camt\.053/,
    );
    assert.match(
      refusal(
        `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "x">]>${ISO_EXAMPLE.slice(ISO_EXAMPLE.indexOf('<Document'))}`,
      ),
      /DOCTYPE/,
    );
    assert.match(refusal(ISO_EXAMPLE.replace(/<MsgId>AAAASESS-FP-STAT001<\/MsgId>/, '')), /GrpHdr\/MsgId is required/);
    assert.match(refusal(ISO_EXAMPLE.replace('105678.50', '105678,50')), /Ntry 1: amount "105678,50" is not a decimal/);
    assert.match(refusal(ISO_EXAMPLE.replace('105678.50', '105678.505')), /fractions of a cent/);
    assert.match(
      refusal(ISO_EXAMPLE.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>X</CdtDbtInd>')),
      /Ntry 2: CdtDbtInd/,
    );
    assert.match(refusal(ISO_EXAMPLE.replace(/<Othr>\s*<Id>50000000054910000003<\/Id>\s*<\/Othr>/, '')), /Acct\/Id/);
  });
});

describe('importing bank statements', () => {
  let t: TestApp;
  let acc: string;
  const count = async (table: string) =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  const invoiceView = async (ref: string) => (await operator(t, 'GET', `/invoices/${ref}`)).data.invoice;

  async function produced(code: string, key = t.key, storeRef = store(t, code), quantity = 1): Promise<string> {
    const order = await createOrder(
      t,
      {
        order: {
          storeReference: storeRef,
          shippingKind: 'dropship',
          dropshipAddress: ADDRESS,
          orderlines: [{ productReference: products(t).protector, quantity }],
        },
      },
      key,
    );
    await operator(t, 'POST', `/orders/${order}/start-production`);
    return order;
  }

  before(async () => {
    t = await createTestApp({ env: { APP_ENV: 'production' } });
    acc = (await t.db.query<{ account_id: string }>("SELECT account_id FROM stores WHERE code = 'DEMO1'"))[0]
      .account_id;
  });
  after(() => t.close());

  it('keeps the ISO example’s foreign-currency credits for a person and skips its debit; a second import adds nothing', async () => {
    const first = await upload(t, ISO_EXAMPLE);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.data.version, 'camt.053.001.02');
    assert.deepEqual(
      [first.data.imported, first.data.matched, first.data.unmatched, first.data.skipped, first.data.repeated],
      [2, 0, 2, 1, 0],
    );
    assert.ok(first.data.payments.every((p: any) => p.status === 'unmatched' && /in SEK/.test(p.detail)));
    const again = await upload(t, ISO_EXAMPLE, 'text/xml');
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual([again.data.imported, again.data.repeated], [0, 2]);
    assert.equal(again.data.statements[0].repeated, true);
    assert.equal(await count('bank_payments'), 2);
    assert.equal(await count('bank_statements'), 1);
  });

  it('matches by invoice number, then by amount, tops up a prepaid account named in the remittance and releases its held order; the rest waits', async () => {
    // Two invoices of the NL account, one of Other Prints, and a prepaid account with a held order.
    t.clock.set('2026-09-10T09:00:00.000Z');
    await produced('DEMO1');
    await produced('OTHER1', t.otherKey, store(t, 'OTHER1'), 2);
    t.clock.set('2026-10-01T03:00:00.000Z');
    const sept = (await operator(t, 'POST', '/invoices/issue', { month: '2026-09' })).data.invoices as any[];
    t.clock.set('2026-10-10T09:00:00.000Z');
    await produced('DEMO1');
    t.clock.set('2026-11-01T03:00:00.000Z');
    const oct = (await operator(t, 'POST', '/invoices/issue', { month: '2026-10' })).data.invoices as any[];
    const a = sept.find((i) => i.accountReference === acc);
    const b = oct.find((i) => i.accountReference === acc);
    const other = sept.find((i) => i.accountReference !== acc);
    assert.ok(a && b && other);

    const org = t.seed.organizations[0].reference;
    const prepaid = (
      await operator(t, 'POST', `/organizations/${org}/accounts`, {
        name: 'Prepaid',
        prepaid: true,
        balance: 0,
        legalEntity: { name: 'Prepaid B.V.' },
        billingAddress: ADDRESS,
      })
    ).data.account.reference;
    const st = (
      await operator(t, 'POST', `/organizations/${org}/stores`, {
        name: 'Prepaid store',
        code: 'PREPAIDB',
        integration: 'api',
        accountReference: prepaid,
      })
    ).data.store.reference;
    const held = await produced('', t.key, st);
    assert.equal(
      (await t.db.query<{ status: string }>('SELECT status FROM orders WHERE id = $1', [held]))[0].status,
      'pending',
    );

    t.clock.set('2026-11-21T08:00:00.000Z');
    const ledgerBefore = await count('ledger_entries');
    const xml = dutchStatement('ABNA-2026-11-20', [
      { ref: 'E1', cents: a.total, remittance: `Betaling factuur ${a.number.replace(/-/g, '')} Demo Cases` },
      { ref: 'E2', cents: other.total, remittance: 'september invoice', debtor: 'Other Prints GmbH' },
      { ref: 'E3', cents: 50_000, remittance: `Top-up ${prepaid}` },
      { ref: 'E4', cents: 777, remittance: 'gift' },
      { ref: 'E5', cents: 9_999, credit: false, remittance: 'rent' },
      { ref: 'E6', cents: 1_000, status: 'PDNG', remittance: b.number },
    ]);
    const res = await upload(t, xml);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.data.imported, res.data.matched, res.data.unmatched, res.data.skipped], [4, 3, 1, 2]);
    const byRef = Object.fromEntries(res.data.payments.map((p: any) => [p.entryReference, p]));
    assert.equal(byRef.E1.matchRule, 'invoice_number');
    assert.equal(byRef.E1.invoiceReference, a.reference);
    assert.equal(byRef.E2.matchRule, 'amount');
    assert.equal(byRef.E2.accountReference, other.accountReference);
    assert.equal(byRef.E3.matchRule, 'account_reference');
    assert.equal(byRef.E3.accountReference, prepaid);
    assert.equal(byRef.E4.status, 'unmatched');
    assert.match(byRef.E4.detail, /no invoice number, account reference or open invoice of €7\.77/);

    assert.equal((await invoiceView(a.reference)).payment.status, 'paid');
    assert.equal((await invoiceView(other.reference)).payment.status, 'paid');
    assert.deepEqual((await invoiceView(b.reference)).payment.paid, 0, 'the pending entry paid nothing');
    const acct = (await operator(t, 'GET', `/accounts/${prepaid}/ledger`)).data;
    assert.equal(acct.entries.find((e: any) => e.kind === 'payment').amount, 50_000);
    const [order] = await t.db.query<{ status: string }>('SELECT status FROM orders WHERE id = $1', [held]);
    assert.equal(order.status, 'in_production', 'the top-up released the held order');
    const ledgerAfter = await count('ledger_entries');

    // The same statement again, and once more concurrently: nothing changes.
    const [r1, r2] = await Promise.all([upload(t, xml), upload(t, xml)]);
    for (const r of [r1, r2]) {
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual([r.data.imported, r.data.repeated], [0, 4]);
    }
    assert.equal(await count('ledger_entries'), ledgerAfter);
    assert.equal(ledgerAfter, ledgerBefore + 4, 'three matched payments and the order’s charge');

    // The unmatched one waits in the list; a person assigns it to an invoice, once.
    const waiting = await operator(t, 'GET', '/bank-payments?status=unmatched');
    assert.equal(waiting.statusCode, 200, waiting.body);
    const e4 = waiting.data.payments.find((p: any) => p.entryReference === 'E4');
    assert.ok(e4);
    const assigned = await operator(t, 'POST', `/bank-payments/${e4.reference}/assign`, {
      invoiceReference: b.reference,
    });
    assert.equal(assigned.statusCode, 200, assigned.body);
    assert.equal(assigned.data.payment.status, 'assigned');
    assert.equal(assigned.data.payment.decidedBy, 'operator API');
    const partly = (await invoiceView(b.reference)).payment;
    assert.deepEqual([partly.status, partly.paid, partly.outstanding], ['overdue', 777, b.total - 777]);
    const twice = await operator(t, 'POST', `/bank-payments/${e4.reference}/assign`, { invoiceReference: b.reference });
    assert.equal(twice.statusCode, 409, twice.body);
    assert.equal(twice.data.code, 'bank_payment_decided');

    // A SEK payment of the ISO example is dismissed, not booked.
    const sek = (await operator(t, 'GET', '/bank-payments?status=unmatched')).data.payments[0];
    const refuse = await operator(t, 'POST', `/bank-payments/${sek.reference}/assign`, { accountReference: acc });
    assert.equal(refuse.statusCode, 400, refuse.body);
    const dismissed = await operator(t, 'POST', `/bank-payments/${sek.reference}/dismiss`, { note: 'supplier refund' });
    assert.equal(dismissed.statusCode, 200, dismissed.body);
    assert.equal(dismissed.data.payment.status, 'dismissed');
    const both = await operator(t, 'POST', `/bank-payments/${e4.reference}/assign`, {
      invoiceReference: b.reference,
      accountReference: acc,
    });
    assert.equal(both.statusCode, 400);
    assert.equal(
      (await operator(t, 'POST', '/bank-payments/Bankpayment_0123456789abcdefghjkmnpqrs/dismiss', { note: 'x' }))
        .statusCode,
      404,
    );
  });

  it('matches and stores the decoded text of character references; one naming NUL refuses the statement whole', async () => {
    const before = [await count('bank_statements'), await count('bank_payments'), await count('ledger_entries')];
    const lines = (nul: string) => [
      { ref: 'CAFE-1', cents: 2_500, debtor: 'Caf[#233] M[#xFC]ller [amp] Co', remittance: 'Caf[#xE9] [amp] Co' },
      { ref: 'CAFE[#x2F]2', cents: 1_500, remittance: `Top[#x2D]up ${acc.replace('_', '[#95]')}${nul}` },
    ];
    const refused = await upload(t, withReferences(dutchStatement('CAFE-NUL', lines(' [#0]'))));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.data.code, 'bank_statement_invalid');
    assert.match(refused.data.message, /&#0;, which names a character XML does not allow/);
    assert.deepEqual(
      [await count('bank_statements'), await count('bank_payments'), await count('ledger_entries')],
      before,
    );

    const res = await upload(t, withReferences(dutchStatement('CAFE', lines(''))));
    assert.equal(res.statusCode, 200, res.body);
    const byRef = Object.fromEntries(res.data.payments.map((p: any) => [p.entryReference, p]));
    assert.equal(byRef['CAFE/2'].matchRule, 'account_reference');
    assert.equal(byRef['CAFE/2'].accountReference, acc);
    const stored = await t.db.query<{ debtor_name: string; remittance: string }>(
      "SELECT debtor_name, remittance FROM bank_payments WHERE entry_reference = 'CAFE-1'",
    );
    assert.deepEqual(stored, [{ debtor_name: 'Café Müller & Co', remittance: 'Café & Co' }]);
  });

  it('refuses bad files with a 400 (or 413 when too large) and writes nothing', async () => {
    const before = [await count('bank_statements'), await count('bank_payments'), await count('ledger_entries')];
    const broken = dutchStatement('BROKEN', [
      { ref: 'B1', cents: 1_000, remittance: 'fine' },
      { ref: 'B2', cents: 2_000, remittance: 'fine too' },
    ]).replace('20.00', '20,00');
    for (const [body, pattern] of [
      ['not xml at all', /not well-formed XML|not an ISO 20022/],
      [broken, /Ntry 2: amount "20,00"/],
      [ISO_EXAMPLE.replace('camt.053.001.02', 'camt.052.001.02'), /camt\.052, not camt\.053/],
    ] as const) {
      const res = await upload(t, body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.data.code, 'bank_statement_invalid');
      assert.match(res.data.message, pattern);
    }
    const json = await operator(t, 'POST', '/bank-statements', { statement: 'x' });
    assert.equal(json.statusCode, 400, json.body);
    const huge = await upload(t, `${ISO_EXAMPLE}${' '.repeat(21 * 1024 * 1024)}`);
    assert.equal(huge.statusCode, 413, huge.body);
    assert.equal(huge.data.code, 'payload_too_large');
    assert.deepEqual(
      [await count('bank_statements'), await count('bank_payments'), await count('ledger_entries')],
      before,
    );
  });
});
