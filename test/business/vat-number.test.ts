import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VAT_PREFIXES, checkVatNumber, vatPrefixOf } from '../../src/modules/billing/vat-number.ts';

/**
 * Per member state: numbers as typed that are valid (with the stored form), and numbers that fail
 * the state's check digits. The examples are the published examples of python-stdnum's VAT modules.
 */
const TABLE: Array<{ prefix: string; valid: Array<[string, string]>; badCheck: string[] }> = [
  { prefix: 'AT', valid: [['ATU13585627', 'ATU13585627']], badCheck: ['ATU13585626'] },
  {
    prefix: 'BE',
    valid: [
      ['BE 0403019261', 'BE0403019261'],
      ['BE403019261', 'BE0403019261'],
    ],
    badCheck: ['BE0431150351'],
  },
  { prefix: 'BG', valid: [['BG 175 074 752', 'BG175074752']], badCheck: ['BG175074754'] },
  { prefix: 'CY', valid: [['CY-10259033P', 'CY10259033P']], badCheck: ['CY10259033Z'] },
  { prefix: 'CZ', valid: [['CZ 25123891', 'CZ25123891']], badCheck: ['CZ25123890'] },
  { prefix: 'DE', valid: [['DE 136,695 976', 'DE136695976']], badCheck: ['DE136695978'] },
  { prefix: 'DK', valid: [['DK 13585628', 'DK13585628']], badCheck: ['DK13585627'] },
  { prefix: 'EE', valid: [['EE100594102', 'EE100594102']], badCheck: ['EE100594103'] },
  {
    prefix: 'EL',
    valid: [
      ['EL 094259216', 'EL094259216'],
      ['GR 094259216', 'EL094259216'],
    ],
    badCheck: ['EL123456781'],
  },
  {
    prefix: 'ES',
    valid: [
      ['ES B-58378431', 'ESB58378431'],
      ['ES 54362315K', 'ES54362315K'],
      ['ES X-5253868-R', 'ESX5253868R'],
    ],
    badCheck: ['ESB58378432'],
  },
  { prefix: 'FI', valid: [['FI 20774740', 'FI20774740']], badCheck: ['FI20774741'] },
  { prefix: 'FR', valid: [['Fr 40 303 265 045', 'FR40303265045']], badCheck: ['FR84323140391'] },
  { prefix: 'HR', valid: [['HR 33392005961', 'HR33392005961']], badCheck: ['HR33392005962'] },
  { prefix: 'HU', valid: [['HU-12892312', 'HU12892312']], badCheck: ['HU12892313'] },
  {
    prefix: 'IE',
    valid: [
      ['IE 6433435F', 'IE6433435F'],
      ['IE 6433435OA', 'IE6433435OA'],
      ['IE8D79739I', 'IE8D79739I'],
    ],
    badCheck: ['IE6433435E'],
  },
  { prefix: 'IT', valid: [['IT 00743110157', 'IT00743110157']], badCheck: ['IT00743110158'] },
  {
    prefix: 'LT',
    valid: [
      ['LT119511515', 'LT119511515'],
      ['LT 100001919017', 'LT100001919017'],
    ],
    badCheck: ['LT100001919018'],
  },
  { prefix: 'LU', valid: [['LU 150 274 42', 'LU15027442']], badCheck: ['LU15027443'] },
  { prefix: 'LV', valid: [['LV 4000 3521 600', 'LV40003521600']], badCheck: ['LV40003521601'] },
  { prefix: 'MT', valid: [['MT 1167-9112', 'MT11679112']], badCheck: ['MT11679113'] },
  {
    prefix: 'NL',
    valid: [
      ['NL4495445B01', 'NL004495445B01'],
      ['NL002455799B11', 'NL002455799B11'],
    ],
    badCheck: ['NL123456789B90'],
  },
  { prefix: 'PL', valid: [['PL 8567346215', 'PL8567346215']], badCheck: ['PL8567346216'] },
  { prefix: 'PT', valid: [['PT 501 964 843', 'PT501964843']], badCheck: ['PT501964842'] },
  { prefix: 'RO', valid: [['RO 185 472 90', 'RO18547290']], badCheck: ['RO18547291'] },
  { prefix: 'SE', valid: [['SE 123456789701', 'SE123456789701']], badCheck: ['SE123456789101'] },
  { prefix: 'SI', valid: [['SI 5022 3054', 'SI50223054']], badCheck: ['SI50223053'] },
  { prefix: 'SK', valid: [['SK 202 274 96 19', 'SK2022749619']], badCheck: ['SK2022749618'] },
  { prefix: 'XI', valid: [['XI 980 7806 84', 'XI980780684']], badCheck: ['XI980780685'] },
];

describe('VAT numbers: form and check digits per member state', () => {
  it('covers every member state and Northern Ireland', () => {
    assert.deepEqual(TABLE.map((r) => r.prefix).sort(), Object.keys(VAT_PREFIXES).sort());
  });

  for (const row of TABLE) {
    it(`${row.prefix}: real numbers pass, a wrong check digit fails`, () => {
      for (const [typed, stored] of row.valid) {
        const r = checkVatNumber(typed);
        assert.ok(r.valid, `${typed}: ${r.valid ? '' : r.message}`);
        assert.equal(r.vatNumber, stored);
        assert.equal(r.prefix, row.prefix);
        assert.equal(r.countryCode, VAT_PREFIXES[row.prefix]);
        assert.equal(`${r.prefix}${r.number}`, stored);
      }
      for (const typed of row.badCheck) {
        const r = checkVatNumber(typed);
        assert.equal(r.valid, false, typed);
        if (!r.valid) assert.equal(r.problem, 'check_digits', `${typed}: ${r.message}`);
      }
    });
  }

  it('refuses what is no EU VAT number, saying why', () => {
    const cases: Array<[string, string]> = [
      ['', 'empty'],
      ['   ', 'empty'],
      ['123456789', 'no_prefix'],
      ['GB980780684', 'not_eu'],
      ['CHE-123.456.788', 'not_eu'],
      ['US123456789', 'not_eu'],
      ['DE123456789B01', 'format'],
      ['DE12345', 'format'],
      ['NL123456789', 'format'],
      ['FR<script>', 'format'],
      ['ATX13585627', 'format'],
    ];
    for (const [typed, problem] of cases) {
      const r = checkVatNumber(typed);
      assert.equal(r.valid, false, typed);
      if (!r.valid) {
        assert.equal(r.problem, problem, `${typed}: ${r.message}`);
        assert.ok(r.message.length > 10);
      }
    }
  });

  it('knows each member state’s prefix', () => {
    assert.equal(vatPrefixOf('gr'), 'EL');
    assert.equal(vatPrefixOf('DE'), 'DE');
    assert.equal(vatPrefixOf('US'), null);
    assert.equal(vatPrefixOf('GB'), null);
    assert.equal(vatPrefixOf('XI'), null);
  });
});
