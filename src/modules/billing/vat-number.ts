import { createRequire } from 'node:module';

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

type Rule = { validate(n: string): { isValid: boolean; compact?: string; error?: Error } };

/**
 * The member state validators (python-stdnum's rules, as the `stdnum` package ports them), by
 * their module in the package. Loaded one by one on first use: the package's index loads every
 * country's numbers (~310 modules), which every process would pay at start for a check that only
 * tax details make. The CommonJS build, since the ES build's deep files import without extensions.
 */
const RULE_MODULES: Readonly<Record<string, string>> = {
  AT: 'at/uid',
  BE: 'be/vat',
  BG: 'bg/vat',
  CY: 'cy/vat',
  CZ: 'cz/dic',
  DE: 'de/vat',
  DK: 'dk/cvr',
  EE: 'ee/kmkr',
  EL: 'gr/vat',
  ES: 'es/nif',
  FI: 'fi/alv',
  FR: 'fr/tva',
  HR: 'hr/oib',
  HU: 'hu/anum',
  IE: 'ie/vat',
  IT: 'it/iva',
  LT: 'lt/pvm',
  LU: 'lu/tva',
  LV: 'lv/pvn',
  MT: 'mt/vat',
  NL: 'nl/btw',
  PL: 'pl/nip',
  PT: 'pt/nif',
  RO: 'ro/cif',
  SE: 'se/vat',
  SI: 'si/ddv',
  SK: 'sk/dph',
  XI: 'gb/vat',
};
const rules = new Map<string, Rule>();
const load = createRequire(import.meta.url);

function ruleFor(prefix: string): Rule | undefined {
  const path = RULE_MODULES[prefix];
  if (!path) return undefined;
  let rule = rules.get(prefix);
  if (!rule) {
    rule = load(`stdnum/lib/cjs/${path}.js`) as Rule;
    rules.set(prefix, rule);
  }
  return rule;
}

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
  const rule = ruleFor(prefix);
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
