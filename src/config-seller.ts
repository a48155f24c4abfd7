/**
 * The seller's legal details printed on every invoice and credit note and written into their UBL:
 * who invoices, where it is registered, and where to pay. Read once at start-up; an invoice keeps
 * the details it was issued with.
 */

export interface SellerConfig {
  name: string;
  street: string;
  postcode: string;
  city: string;
  /** ISO country code of the seller's establishment: where every dispatch begins. */
  countryCode: string;
  /** VAT identification number with its member state prefix (`NL…B01`). */
  vatNumber: string;
  /** Chamber of commerce (KvK) registration number, 8 digits. */
  kvk: string;
  /** IBAN without spaces. */
  iban: string;
  /** Where invoice questions go; the UBL's seller contact. */
  email: string;
}

export const SELLER_DEFAULTS = {
  SELLER_NAME: 'POD Partner Services B.V.',
  SELLER_ADDRESS: 'Keizersgracht 100|1015 CV|Amsterdam|NL',
  SELLER_VAT_NUMBER: 'NL859999993B01',
  SELLER_KVK: '12345678',
  SELLER_IBAN: 'NL91ABNA0417164300',
  SELLER_EMAIL: 'billing@podpartner.example',
} as const;

export const SELLER_VARIABLES: Array<{ name: string; default: string; description: string }> = [
  { name: 'SELLER_NAME', default: SELLER_DEFAULTS.SELLER_NAME, description: 'Legal name of the invoicing company.' },
  {
    name: 'SELLER_ADDRESS',
    default: SELLER_DEFAULTS.SELLER_ADDRESS,
    description:
      "Seller's registered address on invoices: street, postcode, city and ISO country code, separated by `|`.",
  },
  {
    name: 'SELLER_VAT_NUMBER',
    default: SELLER_DEFAULTS.SELLER_VAT_NUMBER,
    description: "Seller's VAT identification number with its country prefix (a Dutch `NL…B..` number).",
  },
  {
    name: 'SELLER_KVK',
    default: SELLER_DEFAULTS.SELLER_KVK,
    description: "Seller's chamber of commerce (KvK) number, 8 digits, on invoices and as the UBL legal registration.",
  },
  {
    name: 'SELLER_IBAN',
    default: SELLER_DEFAULTS.SELLER_IBAN,
    description: 'Account that invoices ask to be paid to (checked with the IBAN check digits).',
  },
  {
    name: 'SELLER_EMAIL',
    default: SELLER_DEFAULTS.SELLER_EMAIL,
    description: 'Contact for invoice questions, printed on invoices and written into their UBL.',
  },
];

/** The ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** `fail` makes the start-up error (config.ts's ConfigError). */
export function parseSeller(env: Record<string, string | undefined>, fail: (message: string) => Error): SellerConfig {
  const get = (k: keyof typeof SELLER_DEFAULTS) => env[k]?.trim() || SELLER_DEFAULTS[k];
  const name = get('SELLER_NAME');
  if (name.length > 120) throw fail('SELLER_NAME: at most 120 characters');
  const parts = get('SELLER_ADDRESS')
    .split('|')
    .map((p) => p.trim());
  if (parts.length !== 4 || parts.some((p) => !p || p.length > 80) || !/^[A-Z]{2}$/.test(parts[3]))
    throw fail('SELLER_ADDRESS: street|postcode|city|country code, e.g. Keizersgracht 100|1015 CV|Amsterdam|NL');
  const vatNumber = get('SELLER_VAT_NUMBER').toUpperCase().replace(/[\s.]/g, '');
  if (!/^[A-Z]{2}[0-9A-Z]{8,12}$/.test(vatNumber) || vatNumber.slice(0, 2) !== parts[3])
    throw fail(
      `SELLER_VAT_NUMBER: a VAT number of the seller's country (${parts[3]}) with its prefix, got "${vatNumber}"`,
    );
  const kvk = get('SELLER_KVK');
  if (!/^\d{8}$/.test(kvk)) throw fail(`SELLER_KVK: 8 digits, got "${kvk}"`);
  const iban = get('SELLER_IBAN').toUpperCase().replace(/\s/g, '');
  if (!ibanValid(iban)) throw fail(`SELLER_IBAN: "${iban}" fails the IBAN check digits`);
  const email = get('SELLER_EMAIL');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw fail(`SELLER_EMAIL: an e-mail address, got "${email}"`);
  return {
    name,
    street: parts[0],
    postcode: parts[1],
    city: parts[2],
    countryCode: parts[3],
    vatNumber,
    kvk,
    iban,
    email,
  };
}

/** The IBAN in groups of four, as people read it. */
export const ibanPrinted = (iban: string) => iban.replace(/(.{4})(?=.)/g, '$1 ');
