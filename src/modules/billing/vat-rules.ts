import { VAT_PREFIXES } from './vat-number.ts';

/**
 * The VAT of each invoice line, decided by the place of supply of goods that a Dutch supplier
 * dispatches from its factory in the Netherlands (Council Directive 2006/112/EC, implemented in
 * the Dutch Wet op de omzetbelasting 1968). Pure: the facts of one supply in, the rule out.
 *
 * Every rate, wording and legal reference is a row of `VAT_RULES` with the date it applies from,
 * so a rate change is one more row. docs/billing.md explains each rule and its assumptions.
 */

/** How a line is taxed; the UBL category (UNCL 5305) and exemption code follow from it. */
export type VatTreatment = 'domestic' | 'intra_community_supply' | 'export';

export interface VatRule {
  treatment: VatTreatment;
  /** The first day (Europe/Amsterdam) of supplies the row applies to. */
  validFrom: string;
  ratePercent: number;
  /** UNCL 5305 VAT category as EN 16931 uses it: S standard, K intra-Community, G export. */
  category: 'S' | 'K' | 'G';
  /** CEF VATEX exemption reason code for 0 % categories (EN 16931 BT-121). */
  exemptionCode: string | null;
  /** Short label beside the rate in the totals by rate. */
  label: string;
  /** The note the invoice must carry (Art. 226(11) and (11a)); null: none needed. */
  wording: string | null;
  legalReference: string;
  /** The buyer's VAT number must be on the invoice (Art. 226(4)). */
  buyerVatNumberRequired: boolean;
}

/** The rule table: one row per treatment and date from which it applies, oldest first. */
export const VAT_RULES: readonly VatRule[] = [
  {
    treatment: 'domestic',
    validFrom: '2001-01-01',
    ratePercent: 19,
    category: 'S',
    exemptionCode: null,
    label: 'Dutch VAT',
    wording: null,
    legalReference: 'Art. 96 Directive 2006/112/EC; Art. 9(1) Wet OB 1968 (19 % until 30 September 2012)',
    buyerVatNumberRequired: false,
  },
  {
    treatment: 'domestic',
    validFrom: '2012-10-01',
    ratePercent: 21,
    category: 'S',
    exemptionCode: null,
    label: 'Dutch VAT',
    wording: null,
    legalReference: 'Art. 32 and 96 Directive 2006/112/EC; Art. 9(1) Wet OB 1968',
    buyerVatNumberRequired: false,
  },
  {
    treatment: 'intra_community_supply',
    validFrom: '2020-01-01',
    ratePercent: 0,
    category: 'K',
    exemptionCode: 'VATEX-EU-IC',
    label: 'intra-Community supply',
    wording:
      'Intra-Community supply of goods, exempt under Article 138(1) of Council Directive 2006/112/EC. Reverse charge: the customer accounts for the VAT on the intra-Community acquisition in the member state of arrival (Article 200).',
    legalReference: 'Art. 138(1) and 226(11) Directive 2006/112/EC; Art. 9(2)(b) and Table II a.6 Wet OB 1968',
    buyerVatNumberRequired: true,
  },
  {
    treatment: 'export',
    validFrom: '2007-01-01',
    ratePercent: 0,
    category: 'G',
    exemptionCode: 'VATEX-EU-G',
    label: 'export',
    wording:
      'Export of goods outside the European Union, exempt under Article 146(1)(a) of Council Directive 2006/112/EC.',
    legalReference: 'Art. 146(1)(a) and 226(11) Directive 2006/112/EC; Art. 9(2)(b) and Table II b.2 Wet OB 1968',
    buyerVatNumberRequired: false,
  },
];

/** The member states, by ISO 3166 code (Greece `GR`): the EU VAT area for goods (Art. 5). */
export const EU_MEMBER_STATES: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/**
 * Places with a member state's country code that are outside (or, for Northern Ireland and
 * Monaco, inside) the EU VAT area for goods, recognised by postcode (Art. 6 and 7 Directive;
 * Windsor Framework). `vatArea`: the member state the place counts as, or null: outside.
 */
export const SPECIAL_TERRITORIES: ReadonlyArray<{
  country: string;
  postcode: RegExp;
  vatArea: string | null;
  name: string;
}> = [
  { country: 'ES', postcode: /^(35|38)\d{3}$/, vatArea: null, name: 'Canary Islands' },
  { country: 'ES', postcode: /^5[12]\d{3}$/, vatArea: null, name: 'Ceuta and Melilla' },
  { country: 'FI', postcode: /^22\d{3}$/, vatArea: null, name: 'Åland Islands' },
  { country: 'DE', postcode: /^(27498|78266)$/, vatArea: null, name: 'Heligoland and Büsingen' },
  { country: 'IT', postcode: /^(23041|22061|22060)$/, vatArea: null, name: "Livigno and Campione d'Italia" },
  { country: 'GR', postcode: /^63086$/, vatArea: null, name: 'Mount Athos' },
  { country: 'FR', postcode: /^97\d{3}$/, vatArea: null, name: 'French overseas departments' },
  { country: 'GB', postcode: /^BT\d/, vatArea: 'XI', name: 'Northern Ireland' },
  { country: 'MC', postcode: /.*/, vatArea: 'FR', name: 'Monaco' },
];

/** The supplier's member state: where every dispatch begins. */
export const SUPPLIER_COUNTRY = 'NL';

/** Where goods go for VAT: a member state's code (`XI` for Northern Ireland), or null outside the EU. */
export function vatAreaOf(country: string, postcode = ''): string | null {
  const cc = country.toUpperCase();
  const pc = postcode.toUpperCase().replace(/\s+/g, '');
  const special = SPECIAL_TERRITORIES.find((t) => t.country === cc && t.postcode.test(pc));
  if (special) return special.vatArea;
  return EU_MEMBER_STATES.has(cc) ? cc : null;
}

/** The facts of one supply (an invoice line) that decide its VAT. */
export interface Supply {
  /** The day of the supply (`YYYY-MM-DD`, Europe/Amsterdam): which row of the table applies. */
  date: string;
  /** Goods, or the shipping that carries them: shipping follows the goods (Art. 78(b)). */
  kind: 'goods' | 'shipping';
  /** Where the goods are shipped to. */
  shipTo: { country: string; postcode?: string };
  /**
   * The buyer's VAT number as the account keeps it, and whether it was checked valid (by the
   * register or an operator). An unchecked or invalid number counts as none.
   */
  buyerVatNumber: string | null;
  buyerVatNumberValid: boolean;
}

export interface VatDecision extends VatRule {
  /** Why this rule applies, in a sentence an accountant can check. */
  reason: string;
}

/** The row of `treatment` that applies on `date`. */
export function ruleOn(treatment: VatTreatment, date: string): VatRule {
  let found: VatRule | undefined;
  for (const r of VAT_RULES) if (r.treatment === treatment && r.validFrom <= date) found = r;
  if (!found) throw new Error(`no ${treatment} VAT rule applies on ${date}`);
  return found;
}

/**
 * Rate and wording of one line. Goods leaving the EU: export. Goods to another member state for
 * a buyer identified there (or in any member state but the Netherlands): intra-Community supply.
 * Otherwise the supply takes place in the Netherlands (Art. 32: where the dispatch begins) and
 * bears Dutch VAT; that includes EU businesses without a valid VAT number (see docs/billing.md).
 */
export function decideVat(s: Supply): VatDecision {
  const area = vatAreaOf(s.shipTo.country, s.shipTo.postcode);
  const what = s.kind === 'goods' ? 'goods' : 'shipping of goods';
  const decided = (treatment: VatTreatment, reason: string): VatDecision => ({
    ...ruleOn(treatment, s.date),
    reason: s.kind === 'shipping' ? `${reason}; shipping follows the goods it carries (Art. 78(b))` : reason,
  });
  if (area === null)
    return decided('export', `${what} shipped to ${s.shipTo.country.toUpperCase()}, outside the EU VAT area`);
  const prefix = s.buyerVatNumberValid && s.buyerVatNumber ? s.buyerVatNumber.slice(0, 2).toUpperCase() : null;
  const buyerState = prefix ? (prefix === 'XI' ? 'XI' : (VAT_PREFIXES[prefix] ?? null)) : null;
  if (area === SUPPLIER_COUNTRY)
    return decided('domestic', `${what} delivered in the Netherlands, where the dispatch begins`);
  if (buyerState && buyerState !== SUPPLIER_COUNTRY)
    return decided(
      'intra_community_supply',
      `${what} shipped from the Netherlands to ${area}, buyer identified for VAT under ${s.buyerVatNumber}`,
    );
  return decided(
    'domestic',
    buyerState
      ? `${what} shipped to ${area} for a buyer identified for VAT in the Netherlands only`
      : `${what} shipped to ${area} for a buyer without a valid VAT number: supplied where the dispatch begins`,
  );
}

/** VAT of a net amount, rounded half away from zero to the cent. */
export const vatOf = (netCents: number, ratePercent: number) =>
  Math.sign(netCents) * Math.round((Math.abs(netCents) * ratePercent) / 100);
