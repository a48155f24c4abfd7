import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Supply, VAT_RULES, decideVat, ruleOn, vatAreaOf, vatOf } from '../../src/modules/billing/vat-rules.ts';

type Row = [
  name: string,
  shipTo: string,
  postcode: string,
  vatNumber: string | null,
  valid: boolean,
  expected: { treatment: string; rate: number; category: string; art?: RegExp },
];
const DOMESTIC = { treatment: 'domestic', rate: 21, category: 'S' };
const IC = { treatment: 'intra_community_supply', rate: 0, category: 'K', art: /Article 138\(1\)/ };
const EXPORT = { treatment: 'export', rate: 0, category: 'G', art: /Article 146\(1\)\(a\)/ };

/** Each row: one buyer and destination, and what every line to it bears (goods and their shipping alike). */
const TABLE: Row[] = [
  ['Dutch business, shipped in the Netherlands', 'NL', '1015 CV', 'NL004495445B01', true, DOMESTIC],
  ['Dutch business without a VAT number', 'NL', '1015 CV', null, false, DOMESTIC],
  ['German business with a valid number, shipped to Germany', 'DE', '10115', 'DE136695976', true, IC],
  ['German business with a valid number, dropshipped to France', 'FR', '75001', 'DE136695976', true, IC],
  ['Greek business (EL prefix), shipped to Greece', 'GR', '10431', 'EL094259216', true, IC],
  ['German business with a valid number, shipped to the Netherlands', 'NL', '1015 CV', 'DE136695976', true, DOMESTIC],
  ['German business whose number is unchecked', 'DE', '10115', 'DE136695976', false, DOMESTIC],
  ['German business without a VAT number', 'DE', '10115', null, false, DOMESTIC],
  ['Dutch business dropshipping to Belgium', 'BE', '1000', 'NL004495445B01', true, DOMESTIC],
  ['US business, shipped to the USA', 'US', '10001', null, false, EXPORT],
  ['Dutch business dropshipping to Switzerland', 'CH', '8001', 'NL004495445B01', true, EXPORT],
  ['German business dropshipping to the UK', 'GB', 'SW1A 1AA', 'DE136695976', true, EXPORT],
  ['Norwegian business, shipped to Norway', 'NO', '0150', null, false, EXPORT],
  ['Spanish business, shipped to the Canary Islands', 'ES', '35001', 'ESA28015865', true, EXPORT],
  ['Finnish business, shipped to Åland', 'FI', '22100', null, false, EXPORT],
  ['Northern Ireland business with an XI number, shipped to Belfast', 'GB', 'BT1 1AA', 'XI980780684', true, IC],
  ['Business in Monaco without a VAT number (French VAT area)', 'MC', '98000', null, false, DOMESTIC],
];

describe('VAT rules by place of supply (a Dutch supplier of goods)', () => {
  for (const [name, shipTo, postcode, vatNumber, valid, want] of TABLE) {
    for (const kind of ['goods', 'shipping'] as const) {
      it(`${name}: ${kind} ${want.treatment} at ${want.rate} %`, () => {
        const s: Supply = {
          date: '2026-11-15',
          kind,
          shipTo: { country: shipTo, postcode },
          buyerVatNumber: vatNumber,
          buyerVatNumberValid: valid,
        };
        const d = decideVat(s);
        assert.equal(d.treatment, want.treatment, d.reason);
        assert.equal(d.ratePercent, want.rate);
        assert.equal(d.category, want.category);
        if (want.art) assert.match(d.wording ?? '', want.art);
        else assert.equal(d.wording, null);
        if (kind === 'shipping') assert.match(d.reason, /shipping follows the goods/);
      });
    }
  }

  it('an intra-Community supply names the buyer reverse charge, never the services article 196', () => {
    const d = ruleOn('intra_community_supply', '2026-01-01');
    assert.match(d.wording!, /Reverse charge/);
    assert.doesNotMatch(d.wording!, /196/);
    assert.equal(d.buyerVatNumberRequired, true);
    assert.equal(d.exemptionCode, 'VATEX-EU-IC');
  });

  it('a rate applies from its date: 19 % before October 2012, 21 % from then', () => {
    assert.equal(ruleOn('domestic', '2012-09-30').ratePercent, 19);
    assert.equal(ruleOn('domestic', '2012-10-01').ratePercent, 21);
    assert.throws(() => ruleOn('domestic', '1999-12-31'), /no domestic VAT rule/);
  });

  it('every row names its legal reference and a valid-from date', () => {
    for (const r of VAT_RULES) {
      assert.match(r.validFrom, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(r.legalReference, /Directive 2006\/112\/EC/);
      if (r.ratePercent === 0) assert.ok(r.wording && r.exemptionCode, r.treatment);
    }
  });

  it('places are found by country and postcode', () => {
    assert.equal(vatAreaOf('es', '28001'), 'ES');
    assert.equal(vatAreaOf('ES', '38001'), null);
    assert.equal(vatAreaOf('GB', 'bt7 1nn'), 'XI');
    assert.equal(vatAreaOf('GB', 'EC1A 1BB'), null);
    assert.equal(vatAreaOf('MC'), 'FR');
  });

  it('VAT is rounded half away from zero per amount', () => {
    assert.equal(vatOf(250, 21), 53);
    assert.equal(vatOf(-250, 21), -53);
    assert.equal(vatOf(1000, 0), 0);
  });
});
