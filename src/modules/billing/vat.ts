import { type VatDecision, type VatTreatment, decideVat } from './vat-rules.ts';

export { vatOf } from './vat-rules.ts';

/** How an invoice as a whole is taxed: the treatment of all its lines, or `mixed`. */
export type InvoiceVatTreatment = 'domestic' | 'reverse_charge' | 'export' | 'mixed';

/**
 * The invoice-level name of a line's treatment. An intra-Community supply is stored as
 * `reverse_charge`: the buyer accounts for the VAT on its acquisition.
 */
export const invoiceTreatmentOf = (t: VatTreatment): Exclude<InvoiceVatTreatment, 'mixed'> =>
  t === 'intra_community_supply' ? 'reverse_charge' : t;

/** The treatment of an invoice whose lines were decided as `decisions`. */
export function invoiceTreatment(decisions: VatDecision[]): InvoiceVatTreatment {
  const kinds = new Set(decisions.map((d) => invoiceTreatmentOf(d.treatment)));
  return kinds.size === 1 ? [...kinds][0] : kinds.size === 0 ? 'domestic' : 'mixed';
}

/**
 * The VAT of an account's lines when only its billing address is known: the goods counted as
 * shipped to the billing country. Only a VAT number checked valid counts.
 */
export function vatTreatment(countryCode: string | undefined, vatNumber: string | null, date: string) {
  const d = decideVat({
    date,
    kind: 'goods',
    shipTo: { country: countryCode ?? '' },
    buyerVatNumber: vatNumber,
    buyerVatNumberValid: Boolean(vatNumber?.trim()),
  });
  return { treatment: invoiceTreatmentOf(d.treatment), ratePercent: d.ratePercent, decision: d };
}
