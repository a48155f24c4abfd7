import { stdnum } from 'stdnum';

/**
 * VAT identification numbers of the EU member states (and Northern Ireland's `XI` numbers, which
 * VIES checks too): their prefix, the member state it belongs to, and a local check of the form and
 * check digits. Pure: no registry is asked; whether a number is registered is the live check's
 * question (vat-checker.ts).
 */

/** The VAT prefix of each member state's numbers → its ISO 3166 country code (Greece is `EL`). */
export const VAT_PREFIXES: Readonly<Record<string, string>> = {
  AT: 'AT',
  BE: 'BE',
  BG: 'BG',
  CY: 'CY',
  CZ: 'CZ',
  DE: 'DE',
  DK: 'DK',
  EE: 'EE',
  EL: 'GR',
  ES: 'ES',
  FI: 'FI',
  FR: 'FR',
  HR: 'HR',
  HU: 'HU',
  IE: 'IE',
  IT: 'IT',
  LT: 'LT',
  LU: 'LU',
  LV: 'LV',
  MT: 'MT',
  NL: 'NL',
  PL: 'PL',
  PT: 'PT',
  RO: 'RO',
  SE: 'SE',
  SI: 'SI',
  SK: 'SK',
  XI: 'GB',
};

/** The member state validators (python-stdnum's rules, as the `stdnum` package ports them). */
const RULES: Readonly<Record<string, { validate(n: string): { isValid: boolean; compact?: string; error?: Error } }>> =
  {
    AT: stdnum.AT.uid,
    BE: stdnum.BE.vat,
    BG: stdnum.BG.vat,
    CY: stdnum.CY.vat,
    CZ: stdnum.CZ.dic,
    DE: stdnum.DE.vat,
    DK: stdnum.DK.cvr,
    EE: stdnum.EE.kmkr,
    EL: stdnum.GR.vat,
    ES: stdnum.ES.nif,
    FI: stdnum.FI.alv,
    FR: stdnum.FR.tva,
    HR: stdnum.HR.oib,
    HU: stdnum.HU.anum,
    IE: stdnum.IE.vat,
    IT: stdnum.IT.iva,
    LT: stdnum.LT.pvm,
    LU: stdnum.LU.tva,
    LV: stdnum.LV.pvn,
    MT: stdnum.MT.vat,
    NL: stdnum.NL.btw,
    PL: stdnum.PL.nip,
    PT: stdnum.PT.nif,
    RO: stdnum.RO.cif,
    SE: stdnum.SE.vat,
    SI: stdnum.SI.ddv,
    SK: stdnum.SK.dph,
    XI: stdnum.GB.vat,
  };

export type VatNumberProblem = 'empty' | 'no_prefix' | 'not_eu' | 'format' | 'check_digits';

export type VatNumberCheck =
  | {
      valid: true;
      /** The prefix as VIES takes it: `DE`, `EL` for Greece, `XI` for Northern Ireland. */
      prefix: string;
      /** The member state's ISO country code (`GR` for `EL`, `GB` for `XI`). */
      countryCode: string;
      /** The number without prefix, spaces or punctuation, as VIES takes it. */
      number: string;
      /** Prefix and number: how the account stores it and an invoice prints it. */
      vatNumber: string;
    }
  | { valid: false; problem: VatNumberProblem; message: string };

const fail = (problem: VatNumberProblem, message: string): VatNumberCheck => ({ valid: false, problem, message });

/**
 * Checks a VAT number as typed (`de 136 695 976`, `NL-004495445-B01`): a member state's prefix, then
 * that state's form and check digits. Greek numbers may be typed with `GR`; they are stored as `EL`.
 */
export function checkVatNumber(input: string): VatNumberCheck {
  const typed = input
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s.\-/,]/g, '');
  if (!typed) return fail('empty', 'VAT number is empty');
  const written = typed.slice(0, 2);
  if (!/^[A-Z]{2}$/.test(written))
    return fail('no_prefix', `VAT number "${input}" does not start with a member state's prefix (e.g. DE, FR, EL)`);
  const prefix = written === 'GR' ? 'EL' : written;
  const rule = RULES[prefix];
  if (!rule)
    return fail('not_eu', `"${written}" is not the VAT prefix of an EU member state (or XI for Northern Ireland)`);
  const rest = typed.slice(2);
  if (!/^[0-9A-Z+*]{2,13}$/.test(rest))
    return fail('format', `VAT number "${input}" does not have the form of a ${prefix} VAT number`);
  const result = rule.validate(rest);
  if (!result.isValid || !result.compact) {
    return result.error?.name === 'InvalidChecksum'
      ? fail('check_digits', `VAT number "${input}" fails the check digits of a ${prefix} VAT number`)
      : fail('format', `VAT number "${input}" does not have the form of a ${prefix} VAT number`);
  }
  const number = result.compact.startsWith(prefix) ? result.compact.slice(2) : result.compact;
  return { valid: true, prefix, countryCode: VAT_PREFIXES[prefix], number, vatNumber: `${prefix}${number}` };
}

/** The VAT prefix of a member state's country code (`GR` → `EL`), or null outside the EU. */
export function vatPrefixOf(countryCode: string): string | null {
  const cc = countryCode.toUpperCase();
  if (cc === 'GR') return 'EL';
  return cc !== 'XI' && cc in VAT_PREFIXES ? cc : null;
}
